package io.sluice.net;

import io.sluice.net.tls.TlsContext;
import io.sluice.net.limits.Rate;

import java.net.InetSocketAddress;

/**
 * What one MQTT listener is: where it binds, whether TLS and/or WebSocket sit in front of the
 * MQTT pipeline, and its connection limits.
 *
 * @param name           the listener's name ({@code tcp}, {@code ssl}, {@code ws}, {@code wss}), for logs
 * @param address        where to bind; port 0 picks a free port
 * @param tls            the TLS context, or null for plain TCP
 * @param webSocketPath  the HTTP path of the WebSocket endpoint ({@code /mqtt}), or null for raw MQTT
 * @param maxConnections {@code max_connections}: open connections on this listener, 0 = unlimited
 * @param maxConnRate    {@code max_conn_rate}: new connections accepted per period
 */
public record ListenerSpec(String name, InetSocketAddress address, TlsContext tls, String webSocketPath,
                           int maxConnections, Rate maxConnRate) {
    public ListenerSpec {
        if (maxConnections < 0) {
            throw new IllegalArgumentException("max_connections must be 0 (unlimited) or positive, got "
                    + maxConnections);
        }
        if (webSocketPath != null && !webSocketPath.startsWith("/")) {
            throw new IllegalArgumentException("a WebSocket path must start with '/', got '" + webSocketPath + "'");
        }
    }

    /** A plain TCP listener without limits of its own. */
    public static ListenerSpec tcp(String name, InetSocketAddress address) {
        return new ListenerSpec(name, address, null, null, 0, Rate.UNLIMITED);
    }

    /** Whether the client certificate's CN becomes the user name. */
    public boolean peerCertAsUsername() {
        return tls != null && tls.settings().peerCertAsUsername();
    }

    /** How clients reach it: {@code mqtt}, {@code mqtts}, {@code ws} or {@code wss}. */
    public String scheme() {
        if (webSocketPath != null) {
            return tls != null ? "wss" : "ws";
        }
        return tls != null ? "mqtts" : "mqtt";
    }
}
