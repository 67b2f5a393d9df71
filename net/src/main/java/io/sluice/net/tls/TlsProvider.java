package io.sluice.net.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which TLS implementation the listeners use: OpenSSL (the BoringSSL of netty-tcnative) where its
 * native library loads, because a full handshake there costs a fraction of the CPU of the JDK's
 * SSLEngine (docs/benchmarks.md, "Connection storms"); the JDK's elsewhere, with one warning.
 */
public final class TlsProvider {
    private static final Logger LOG = LoggerFactory.getLogger(TlsProvider.class);
    private static final SslProvider SERVER = chooseServer();

    private TlsProvider() {
    }

    /** The provider of every server-side TLS context. */
    public static SslProvider server() {
        return SERVER;
    }

    private static SslProvider chooseServer() {
        if (OpenSsl.isAvailable()) {
            return SslProvider.OPENSSL;
        }
        LOG.warn("OpenSSL (netty-tcnative) is unavailable ({}); TLS listeners use the JDK's TLS, "
                + "whose handshakes cost several times more CPU", String.valueOf(OpenSsl.unavailabilityCause()));
        return SslProvider.JDK;
    }
}
