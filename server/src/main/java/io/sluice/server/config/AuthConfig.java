package io.sluice.server.config;

import io.sluice.broker.security.Authorizer;

import java.nio.file.Path;

/**
 * {@code auth { }}: who may connect and what they may do.
 *
 * @param allowAnonymous {@code allow_anonymous}: clients without a user name may connect
 * @param noMatchAllows  {@code no_match = allow}: what happens when no ACL rule applies
 * @param denyAction     {@code deny_action}: {@code ignore} drops a denied PUBLISH, {@code disconnect} ends the connection
 * @param passwordFile   {@code password_file}, or null
 * @param aclFile        {@code acl_file}, or null
 */
public record AuthConfig(boolean allowAnonymous, boolean noMatchAllows, Authorizer.DenyAction denyAction,
                         Path passwordFile, Path aclFile) {
    /** Everyone in, everything allowed: the default without an {@code auth} block. */
    public static final AuthConfig OPEN = new AuthConfig(true, true, Authorizer.DenyAction.IGNORE, null, null);
}
