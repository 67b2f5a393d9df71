package io.sluice.net.tls;

import java.nio.file.Path;

/**
 * The TLS files of an outgoing connection (a bridge's {@code ssl { }} block), PEM like the listener's.
 *
 * @param caCertFile     {@code cacertfile}: CA certificates the server's certificate must chain to;
 *                       null trusts the JDK's default CAs
 * @param certFile       {@code certfile}: the client certificate chain for mutual TLS, or null
 * @param keyFile        {@code keyfile}: its private key (PKCS#8, optionally encrypted), or null
 * @param keyPassword    {@code key_password}: password of an encrypted key, or null
 * @param verifyHostname whether the server's certificate must name the host connected to
 */
public record TlsClientSettings(Path caCertFile, Path certFile, Path keyFile, String keyPassword,
                                boolean verifyHostname) {
    public TlsClientSettings {
        if ((certFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException("certfile and keyfile go together: a client certificate needs its key");
        }
    }
}
