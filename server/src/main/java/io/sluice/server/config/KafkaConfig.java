package io.sluice.server.config;

import io.sluice.net.limits.Rate;
import io.sluice.net.tls.TlsSettings;

import java.net.InetSocketAddress;

/**
 * The Kafka listener, {@code listeners.kafka { bind, advertised, ssl, max_request_size,
 * max_connections, max_conn_rate }}:
 * <pre>
 * listeners.kafka {
 *   bind = "0.0.0.0:9092"
 *   advertised = "gateway.local:9092"   # what clients are told to connect to; default: the bind address
 *   ssl = false                         # true: TLS with the keyfile, certfile and peer settings of listeners.ssl
 *   max_request_size = 16MB             # a larger request closes its connection
 *   max_connections = 0
 *   max_conn_rate = infinity
 * }
 * </pre>
 *
 * @param bind           where to listen
 * @param advertisedHost the host clients are told to use, or null: the bound address (the host name for 0.0.0.0)
 * @param advertisedPort the port clients are told to use, or 0: the bound port
 * @param tls            TLS settings (those of {@code listeners.ssl}), or null
 * @param maxRequestSize {@code max_request_size} in bytes
 * @param maxConnections {@code max_connections}, 0 = unlimited
 * @param maxConnRate    {@code max_conn_rate}
 */
public record KafkaConfig(InetSocketAddress bind, String advertisedHost, int advertisedPort, TlsSettings tls,
                          int maxRequestSize, int maxConnections, Rate maxConnRate) {
    private static final String PATH = "listeners.kafka";
    private static final int DEFAULT_MAX_REQUEST_SIZE = 16 << 20;
    private static final int MIN_MAX_REQUEST_SIZE = 1 << 20;

    /** The listener, or null when {@code listeners.kafka} is not set. */
    static KafkaConfig read(ConfigReader r, TlsSettings sslListener) {
        if (!r.has(PATH)) {
            return null;
        }
        InetSocketAddress bind = r.hostPort(PATH + ".bind", "0.0.0.0:9092");
        String advertised = r.string(PATH + ".advertised", null);
        String host = null;
        int port = 0;
        if (advertised != null) {
            if (advertised.contains(":")) {
                InetSocketAddress address = r.parseHostPort(PATH + ".advertised", advertised);
                host = address.getHostString();
                port = address.getPort();
            } else {
                host = advertised;
            }
            if (host.isBlank()) {
                throw new ConfigError(PATH + ".advertised", "must name a host, got '" + advertised + "'");
            }
        }
        TlsSettings tls = SharedTls.ifEnabled(r, PATH + ".ssl", sslListener);
        int maxRequestSize = (int) r.bytes(PATH + ".max_request_size", DEFAULT_MAX_REQUEST_SIZE, MIN_MAX_REQUEST_SIZE,
                Integer.MAX_VALUE - 8);
        int maxConnections = (int) r.integer(PATH + ".max_connections", 0, 0, Integer.MAX_VALUE);
        Rate rate = r.rate(PATH + ".max_conn_rate", Rate.UNLIMITED, false);
        return new KafkaConfig(bind, host, port, tls, maxRequestSize, maxConnections, rate);
    }
}
