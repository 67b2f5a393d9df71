package io.sluice.server.config;

import io.sluice.net.tls.TlsSettings;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The HTTP server, {@code http_server { }}: {@code /metrics}, {@code /health}, the API under
 * {@code /api/v4} and the dashboard at {@code /}.
 *
 * @param bind        where to listen: {@code ip_addr} and {@code port}; the loopback address when no credentials are configured
 * @param username    {@code username} of NanoMQ's Basic authentication, or null
 * @param password    its {@code password}, or null
 * @param users       {@code users}: password-file users ({@code auth.password_file}) who may use the API
 * @param authMetrics {@code auth_metrics}: whether {@code /metrics} and {@code /health} also ask for credentials
 * @param maxBody     {@code max_body}: the largest request body accepted, in bytes
 * @param maxRecords  {@code max_records}: the most records one range read may return
 * @param tls         with {@code ssl = true}, the TLS files of {@code listeners.ssl}; else null
 * @param loopbackOnly whether {@code ip_addr} was overridden with the loopback address because no credentials are configured
 */
public record HttpServerConfig(InetSocketAddress bind, String username, String password, List<String> users,
                               boolean authMetrics, int maxBody, int maxRecords, TlsSettings tls,
                               boolean loopbackOnly) {
    private static final String PATH = "http_server";

    public HttpServerConfig {
        users = List.copyOf(users);
    }

    /**
     * The server, or null without an {@code http_server} block. Without credentials it listens on
     * the loopback address only, whatever {@code ip_addr} says.
     *
     * @param passwordFile {@code auth.password_file}, which {@code users} need; or null
     * @param sslListener  the settings of {@code listeners.ssl}, which {@code ssl = true} needs; or null
     */
    static HttpServerConfig read(ConfigReader r, Path passwordFile, TlsSettings sslListener) {
        if (!r.has(PATH)) {
            return null;
        }
        int port = (int) r.integer(PATH + ".port", 8081, 0, 65535);
        String ip = r.string(PATH + ".ip_addr", "0.0.0.0");
        String authType = r.choice(PATH + ".auth_type", "basic", "basic", "jwt");
        if (authType.equals("jwt")) {
            throw new ConfigError(PATH + ".auth_type", "jwt is not supported by Sluice; use basic");
        }
        String username = blankToNull(r.string(PATH + ".username", null));
        String password = blankToNull(r.string(PATH + ".password", null));
        if ((username == null) != (password == null)) {
            throw new ConfigError(PATH + (username == null ? ".username" : ".password"),
                    "is required when " + (username == null ? "password" : "username") + " is set");
        }
        List<String> users = r.strings(PATH + ".users");
        if (!users.isEmpty() && passwordFile == null) {
            throw new ConfigError(PATH + ".users", "names users of auth.password_file, which is not configured");
        }
        boolean authMetrics = r.bool(PATH + ".auth_metrics", false);
        int maxBody = (int) r.bytes(PATH + ".max_body", 1 << 20, 1024, 256L << 20);
        int maxRecords = (int) r.integer(PATH + ".max_records", 100_000, 1, 10_000_000);
        TlsSettings tls = SharedTls.ifEnabled(r, PATH + ".ssl", sslListener);
        r.tolerate(PATH + ".limit_conn", PATH + ".jwt.public.keyfile");
        boolean credentials = username != null || !users.isEmpty();
        boolean narrowed = !credentials && !isLoopback(ip);
        InetSocketAddress bind = r.parseHostPort(PATH + ".ip_addr", (credentials ? ip : "127.0.0.1") + ":" + port);
        return new HttpServerConfig(bind, username, password, users, authMetrics, maxBody, maxRecords, tls,
                narrowed);
    }

    private static boolean isLoopback(String ip) {
        String host = ip.toLowerCase(Locale.ROOT);
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    /** Whether any credentials are configured: NanoMQ's user or password-file users. */
    public boolean hasCredentials() {
        return username != null || !users.isEmpty();
    }
}
