package io.sluice.server.config;

/**
 * How operators watch the broker.
 *
 * @param sysIntervalMillis {@code system.sys_interval}: how often {@code $SYS} topics are published; 0 = never
 * @param http              {@code http_server { }}: the HTTP server, or null without an {@code http_server} block
 */
public record MonitoringConfig(long sysIntervalMillis, HttpServerConfig http) {
    /** The defaults: {@code $SYS} every 10 s, no HTTP server. */
    public static final MonitoringConfig DEFAULTS = new MonitoringConfig(10_000, null);

    public boolean httpServer() {
        return http != null;
    }

    /** {@code http_server.port}; -1 without an HTTP server, 0 = any free port. */
    public int httpPort() {
        return http == null ? -1 : http.bind().getPort();
    }
}
