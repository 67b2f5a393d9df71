package io.sluice.bridges.mqtt;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * A bridge's {@code server}, as NanoMQ writes it: {@code mqtt-tcp://host:port} for MQTT over TCP,
 * {@code tls+mqtt-tcp://host:port} for MQTT over TLS ({@code mqtt://} and {@code mqtts://} are read
 * the same way); the port defaults to 1883 and 8883. NanoMQ's {@code mqtt-quic://} is refused:
 * Sluice does not speak QUIC.
 *
 * @param tls  whether the connection is TLS
 * @param host host name or address
 * @param port TCP port
 */
public record ServerAddress(boolean tls, String host, int port) {

    /** Parses {@code text}; throws {@link IllegalArgumentException} saying what is wrong. */
    public static ServerAddress parse(String text) {
        int colon = text.indexOf("://");
        if (colon < 0) {
            throw new IllegalArgumentException("must be a URL such as \"mqtt-tcp://host:1883\" or"
                    + " \"tls+mqtt-tcp://host:8883\", got '" + text + "'");
        }
        String scheme = text.substring(0, colon).toLowerCase(Locale.ROOT);
        boolean tls = switch (scheme) {
            case "mqtt-tcp", "mqtt", "tcp" -> false;
            case "tls+mqtt-tcp", "mqtts", "ssl" -> true;
            case "mqtt-quic" -> throw new IllegalArgumentException("mqtt-quic:// is not supported: Sluice bridges speak"
                    + " MQTT over TCP (mqtt-tcp://) or TLS (tls+mqtt-tcp://), not QUIC");
            default -> throw new IllegalArgumentException("unknown scheme '" + scheme + "' in '" + text
                    + "': use mqtt-tcp:// or tls+mqtt-tcp://");
        };
        URI uri;
        try {
            uri = new URI("mqtt://" + text.substring(colon + 3));
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("'" + text + "' is not a valid URL: " + e.getMessage(), e);
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new IllegalArgumentException("'" + text + "' names no host");
        }
        if (uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/")) {
            throw new IllegalArgumentException("'" + text + "': an MQTT server address has no path");
        }
        int port = uri.getPort() < 0 ? (tls ? 8883 : 1883) : uri.getPort();
        String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1)
                : uri.getHost();
        return new ServerAddress(tls, host, port);
    }

    @Override
    public String toString() {
        return (tls ? "tls+mqtt-tcp://" : "mqtt-tcp://") + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
