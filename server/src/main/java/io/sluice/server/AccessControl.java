package io.sluice.server;

import io.sluice.broker.security.AclAuthorizer;
import io.sluice.net.auth.InvalidFileException;
import io.sluice.net.auth.PasswordAuthenticator;
import io.sluice.server.config.AuthConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The authenticator and the authoriser that {@code auth { }} describes, loaded from the password
 * and ACL files, and how each is reloaded when its file changes.
 *
 * @param authenticator user names and passwords, anonymous access, SCRAM
 * @param authorizer    the ACL
 */
record AccessControl(PasswordAuthenticator authenticator, AclAuthorizer authorizer) {
    private static final Logger LOG = LoggerFactory.getLogger(AccessControl.class);

    /** Loads the files; a file that cannot be used stops start-up with its name and line. */
    static AccessControl load(AuthConfig auth) {
        try {
            PasswordAuthenticator authenticator = new PasswordAuthenticator(auth.allowAnonymous(), auth.passwordFile());
            AclAuthorizer authorizer = new AclAuthorizer(auth.noMatchAllows(), auth.denyAction(), auth.aclFile());
            if (!auth.allowAnonymous() && auth.passwordFile() == null) {
                LOG.warn("auth.allow_anonymous is false and there is no auth.password_file:"
                        + " only clients with a verified certificate (peer_cert_as_username) can connect");
            }
            return new AccessControl(authenticator, authorizer);
        } catch (InvalidFileException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** Reloads the password and ACL files when they change or on SIGHUP. */
    void watch(ReloadWatch watch) {
        if (authenticator.file() != null) {
            watch.add("password file", List.of(authenticator.file()), authenticator::reload);
        }
        if (authorizer.file() != null) {
            watch.add("ACL file", List.of(authorizer.file()), authorizer::reload);
        }
    }
}
