package io.sluice.broker.security;

import io.sluice.broker.topic.TopicName;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.net.auth.InvalidFileException;

import java.nio.file.Path;
import java.util.List;

/**
 * Authorisation from {@code auth { no_match, deny_action, acl_file }}: the first {@link AclRule}
 * that applies decides, {@code no_match} decides when none does. Without an ACL file every
 * question is answered by {@code no_match}.
 *
 * <p>Thread-safe: every event loop asks concurrently; {@link #reload()} swaps the rule list
 * atomically, and a file that does not parse leaves the previous rules in place.
 */
public final class AclAuthorizer implements Authorizer {
    private final boolean noMatchAllows;
    private final DenyAction denyAction;
    private final Path file;
    private volatile List<AclRule> rules = List.of();

    /**
     * @param noMatchAllows {@code auth.no_match = allow}
     * @param denyAction    {@code auth.deny_action}
     * @param file          {@code auth.acl_file}, or null for none
     */
    public AclAuthorizer(boolean noMatchAllows, DenyAction denyAction, Path file) throws InvalidFileException {
        this.noMatchAllows = noMatchAllows;
        this.denyAction = denyAction;
        this.file = file;
        if (file != null) {
            reload();
        }
    }

    /** An authoriser of these rules, without a file; for tests and embedding. */
    public static AclAuthorizer of(List<AclRule> rules, boolean noMatchAllows, DenyAction denyAction) {
        try {
            AclAuthorizer authorizer = new AclAuthorizer(noMatchAllows, denyAction, null);
            authorizer.rules = List.copyOf(rules);
            return authorizer;
        } catch (InvalidFileException e) {
            throw new IllegalStateException("no file was read", e);
        }
    }

    /** Reads the ACL file again; on failure the previous rules stay and the exception says why. */
    public void reload() throws InvalidFileException {
        if (file != null) {
            rules = AclFile.read(file);
        }
    }

    /** The ACL file, or null. */
    public Path file() {
        return file;
    }

    /** The rules in force. */
    public List<AclRule> rules() {
        return rules;
    }

    @Override
    public boolean mayPublish(ClientIdentity client, String topic) {
        List<AclRule> current = rules;
        for (int i = 0; i < current.size(); i++) { // indexed: no iterator on the PUBLISH path
            AclRule rule = current.get(i);
            if (rule.appliesToPublish(client, topic)) {
                return rule.allow();
            }
        }
        return noMatchAllows;
    }

    @Override
    public boolean maySubscribe(ClientIdentity client, String filter) {
        String[] levels = TopicName.levels(filter);
        for (AclRule rule : rules) {
            if (rule.appliesToSubscribe(client, filter, levels)) {
                return rule.allow();
            }
        }
        return noMatchAllows;
    }

    @Override
    public DenyAction denyAction() {
        return denyAction;
    }
}
