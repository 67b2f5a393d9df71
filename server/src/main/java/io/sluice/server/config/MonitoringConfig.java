package io.sluice.server.config;

/**
 * How operators watch the broker.
 *
 * @param sysIntervalMillis {@code system.sys_interval}: how often {@code $SYS} topics are published; 0 = never
 * @param httpPort          {@code http_server.port}: the port of {@code /metrics} and {@code /health};
 *                          -1 without an {@code http_server} block (no HTTP server), 0 = any free port
 */
public record MonitoringConfig(long sysIntervalMillis, int httpPort) {
    /** The defaults: {@code $SYS} every 10 s, no HTTP server. */
    public static final MonitoringConfig DEFAULTS = new MonitoringConfig(10_000, -1);

    public boolean httpServer() {
        return httpPort >= 0;
    }
}
