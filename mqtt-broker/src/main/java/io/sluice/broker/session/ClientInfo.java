package io.sluice.broker.session;

/**
 * How a connected client connected, fixed at CONNACK; what status readers (the HTTP API) show.
 *
 * @param username          the authenticated user name, or null
 * @param address           the remote address, {@code /host:port}
 * @param protocolVersion   the MQTT protocol level: 3 (3.1), 4 (3.1.1) or 5
 * @param keepAliveSeconds  the keepalive granted, 0 = none
 * @param cleanStart        whether it asked for a clean start
 * @param connectedAtMillis when CONNACK went out, epoch milliseconds
 */
public record ClientInfo(String username, String address, int protocolVersion, int keepAliveSeconds,
                         boolean cleanStart, long connectedAtMillis) {
}
