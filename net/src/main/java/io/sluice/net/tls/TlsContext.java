package io.sluice.net.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * The server side of TLS for {@code listeners.ssl} and {@code listeners.wss}: TLS 1.3 and 1.2
 * (OpenSSL where it loads, else the JDK's: {@link TlsProvider}), the PEM key and certificate chain, and, with {@code verify_peer}, client
 * certificates checked against the CA file ({@code fail_if_no_peer_cert} makes one mandatory).
 *
 * <p>{@link #reload()} reads the files again and swaps the context that {@link #newHandler}
 * reads, so new connections get the new certificate while open ones keep theirs. A key that does
 * not belong to its certificate (say, a certificate renewed before its key was copied) is
 * refused and the previous context stays, so a half-finished renewal never breaks the listener.
 *
 * <p>Thread-safe: event loops read the context while the reload thread swaps it.
 */
public final class TlsContext {
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final TlsSettings settings;
    private volatile SslContext context;
    private volatile X509Certificate certificate;

    /** Loads the files; throws with the file's name if one is missing or wrong. */
    public TlsContext(TlsSettings settings) throws IOException {
        this.settings = settings;
        reload();
    }

    /** Reads the files again; on failure the previous context stays and the exception names the file. */
    public void reload() throws IOException {
        PrivateKey key = PemFiles.privateKey(settings.keyFile(), settings.keyPassword());
        List<X509Certificate> chain = PemFiles.certificates(settings.certFile());
        checkPair(key, chain.get(0));
        SslContextBuilder builder = SslContextBuilder.forServer(key, chain.toArray(new X509Certificate[0]))
                .sslProvider(TlsProvider.server())
                .protocols(PROTOCOLS)
                .clientAuth(!settings.verifyPeer() ? ClientAuth.NONE
                        : settings.failIfNoPeerCert() ? ClientAuth.REQUIRE : ClientAuth.OPTIONAL);
        if (settings.caCertFile() != null) {
            builder.trustManager(PemFiles.certificates(settings.caCertFile()).toArray(new X509Certificate[0]));
        }
        try {
            context = builder.build();
        } catch (IOException e) {
            throw new IOException("TLS context from " + settings.certFile() + " and " + settings.keyFile()
                    + ": " + e.getMessage(), e);
        }
        certificate = chain.get(0);
    }

    /**
     * Signs with the key and verifies with the certificate: they must be a pair. Each failure says
     * what it is: a key that cannot sign, a certificate whose key is of another kind or does not
     * verify the signature, or a JDK without the algorithm; the cause goes along.
     */
    private void checkPair(PrivateKey key, X509Certificate leaf) throws IOException {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
            default -> null; // RSASSA-PSS needs parameters; the handshake will tell
        };
        if (algorithm == null) {
            return;
        }
        byte[] probe = "sluice key check".getBytes(StandardCharsets.US_ASCII);
        byte[] signature;
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            signature = signer.sign();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot sign with the " + key.getAlgorithm() + " key in " + settings.keyFile() + " ("
                    + algorithm + ") to check that it belongs to the certificate in " + settings.certFile() + ": " + e, e);
        }
        boolean pair;
        try {
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(leaf.getPublicKey());
            verifier.update(probe);
            pair = verifier.verify(signature);
        } catch (InvalidKeyException | SignatureException e) {
            throw notAPair(key, leaf, e);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot check that the key in " + settings.keyFile() + " belongs to the certificate in "
                    + settings.certFile() + ": " + e, e);
        }
        if (!pair) {
            throw notAPair(key, leaf, null);
        }
    }

    private IOException notAPair(PrivateKey key, X509Certificate leaf, GeneralSecurityException cause) {
        return new IOException("the " + key.getAlgorithm() + " key in " + settings.keyFile()
                + " does not belong to the certificate in " + settings.certFile() + " (" + leaf.getSubjectX500Principal()
                + ", whose key is " + leaf.getPublicKey().getAlgorithm() + ")" + (cause == null ? "" : ": " + cause), cause);
    }

    /** A handler for one new server-side connection, from the current context. */
    public SslHandler newHandler(ByteBufAllocator alloc) {
        return context.newHandler(alloc);
    }

    public TlsSettings settings() {
        return settings;
    }

    /** The server certificate in use. */
    public X509Certificate certificate() {
        return certificate;
    }

    /** The files {@link #reload()} reads, for watching. */
    public List<Path> files() {
        List<Path> files = new ArrayList<>(List.of(settings.keyFile(), settings.certFile()));
        if (settings.caCertFile() != null) {
            files.add(settings.caCertFile());
        }
        return files;
    }
}
