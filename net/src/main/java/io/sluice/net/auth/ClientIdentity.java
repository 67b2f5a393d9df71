package io.sluice.net.auth;

import java.net.SocketAddress;

/**
 * Who a connection says it is, as authentication and authorisation see it.
 *
 * @param clientId the client identifier (after assignment, if the client sent none)
 * @param username the CONNECT user name, or null
 * @param address  the remote address of the connection
 */
public record ClientIdentity(String clientId, String username, SocketAddress address) {
}
