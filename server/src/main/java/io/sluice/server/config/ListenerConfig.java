package io.sluice.server.config;

import io.sluice.net.limits.Rate;
import io.sluice.net.tls.TlsSettings;

import java.net.InetSocketAddress;

/**
 * One MQTT listener, {@code listeners.<name> { bind, max_connections, max_conn_rate }}, plus the
 * TLS files of {@code listeners.ssl} for {@code ssl} and {@code wss}.
 *
 * @param name           the listener's name: {@code tcp}, {@code ssl}, {@code ws} or {@code wss}
 * @param bind           the address to listen on
 * @param webSocketPath  for {@code ws} and {@code wss}, the path of the bind value ({@code /mqtt}); else null
 * @param tls            for {@code ssl} and {@code wss}, the TLS settings; else null
 * @param maxConnections {@code max_connections}: open connections on this listener, 0 = unlimited
 * @param maxConnRate    {@code max_conn_rate}: new connections accepted per period
 */
public record ListenerConfig(String name, InetSocketAddress bind, String webSocketPath, TlsSettings tls,
                             int maxConnections, Rate maxConnRate) {
    /** A plain listener without limits. */
    public ListenerConfig(String name, InetSocketAddress bind) {
        this(name, bind, null, null, 0, Rate.UNLIMITED);
    }
}
