package io.sluice.server.config;

import io.sluice.net.tls.TlsSettings;

/** A listener's {@code ssl = true}: it serves TLS with the PEM files of {@code listeners.ssl}. */
final class SharedTls {
    private SharedTls() {
    }

    /**
     * The TLS settings {@code key} (a boolean, default false) asks for: those of {@code listeners.ssl},
     * or null when it is false. True without a {@code listeners.ssl} is an error at {@code key}.
     */
    static TlsSettings ifEnabled(ConfigReader r, String key, TlsSettings sslListener) {
        if (!r.bool(key, false)) {
            return null;
        }
        if (sslListener == null) {
            throw new ConfigError(key, "takes its keyfile and certfile from listeners.ssl, which is not configured");
        }
        return sslListener;
    }
}
