package io.sluice.net.tls;

import java.nio.file.Path;

/**
 * The TLS files and client-certificate policy of {@code listeners.ssl} (also used by
 * {@code listeners.wss}).
 *
 * @param keyFile            {@code keyfile}: the server's private key, PEM (PKCS#8, optionally encrypted)
 * @param certFile           {@code certfile}: the server's certificate chain, PEM, leaf first
 * @param caCertFile         {@code cacertfile}: CA certificates that client certificates must chain to, or null
 * @param keyPassword        {@code key_password}: password of an encrypted key, or null
 * @param verifyPeer         {@code verify_peer}: ask clients for a certificate and verify it against the CA
 * @param failIfNoPeerCert   {@code fail_if_no_peer_cert}: with verify_peer, refuse clients that send none
 * @param peerCertAsUsername {@code peer_cert_as_username}: the certificate's CN is the client's user name
 */
public record TlsSettings(Path keyFile, Path certFile, Path caCertFile, String keyPassword, boolean verifyPeer,
                          boolean failIfNoPeerCert, boolean peerCertAsUsername) {
    public TlsSettings {
        if (keyFile == null || certFile == null) {
            throw new IllegalArgumentException("keyfile and certfile are required");
        }
        if (verifyPeer && caCertFile == null) {
            throw new IllegalArgumentException("verify_peer needs cacertfile, the CA that client certificates chain to");
        }
    }
}
