package io.sluice.net.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;

import java.io.IOException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * The client side of TLS, for connections Sluice opens (bridges): TLS 1.3 and 1.2 (JDK provider),
 * the server verified against {@code cacertfile} (or the JDK's CAs) and, unless turned off, by host
 * name; optionally a client certificate. Thread-safe once built.
 */
public final class TlsClientContext {
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final TlsClientSettings settings;
    private final SslContext context;

    /** Loads the files; throws with the file's name if one is missing or wrong. */
    public TlsClientContext(TlsClientSettings settings) throws IOException {
        this.settings = settings;
        SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols(PROTOCOLS);
        if (settings.caCertFile() != null) {
            builder.trustManager(PemFiles.certificates(settings.caCertFile()).toArray(new X509Certificate[0]));
        }
        if (settings.keyFile() != null) {
            PrivateKey key = PemFiles.privateKey(settings.keyFile(), settings.keyPassword());
            List<X509Certificate> chain = PemFiles.certificates(settings.certFile());
            builder.keyManager(key, chain.toArray(new X509Certificate[0]));
        }
        try {
            this.context = builder.build();
        } catch (IOException e) {
            throw new IOException("TLS client context from " + settings + ": " + e.getMessage(), e);
        }
    }

    /** A handler for one connection to {@code host:port}, checking the host name unless configured not to. */
    public SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
        SslHandler handler = context.newHandler(alloc, host, port);
        if (settings.verifyHostname()) {
            SSLEngine engine = handler.engine();
            SSLParameters parameters = engine.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            engine.setSSLParameters(parameters);
        }
        return handler;
    }

    public TlsClientSettings settings() {
        return settings;
    }
}
