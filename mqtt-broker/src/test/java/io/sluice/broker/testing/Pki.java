package io.sluice.broker.testing;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A throwaway certificate authority for TLS tests: a CA, server certificates for 127.0.0.1 and
 * localhost, client certificates with a chosen CN, all EC P-256 and written as PEM files the way
 * operators get them (PKCS#8 keys), plus the key and trust managers a client needs.
 */
public final class Pki {
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());
    private static final char[] STORE_PASSWORD = "changeit".toCharArray();

    /** A key and its certificate, in memory and as PEM files. */
    public record Issued(PrivateKey key, X509Certificate certificate, Path keyFile, Path certFile) {
    }

    private final Path dir;
    private final KeyPair caKeys;
    private final X509Certificate caCertificate;
    private final Path caFile;

    private Pki(Path dir, String caName) throws Exception {
        this.dir = dir;
        this.caKeys = keyPair();
        X500Name name = new X500Name("CN=" + caName);
        X509v3CertificateBuilder builder = builder(name, name, caKeys);
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        this.caCertificate = sign(builder, caKeys.getPrivate());
        this.caFile = dir.resolve(caName.replace(' ', '-') + ".pem");
        Files.writeString(caFile, pem("CERTIFICATE", caCertificate.getEncoded()));
    }

    /** A new CA whose files go into {@code dir}. */
    public static Pki create(Path dir, String caName) throws Exception {
        return new Pki(dir, caName);
    }

    public Path caFile() {
        return caFile;
    }

    public X509Certificate caCertificate() {
        return caCertificate;
    }

    /** A server certificate for 127.0.0.1 and localhost, written to {@code <name>-key.pem} and {@code <name>-cert.pem}. */
    public Issued server(String name) throws Exception {
        KeyPair keys = keyPair();
        X509v3CertificateBuilder builder = builder(new X500Name(caCertificate.getSubjectX500Principal().getName()),
                new X500Name("CN=" + name), keys);
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")}));
        return write(name, keys, sign(builder, caKeys.getPrivate()));
    }

    /** A client certificate with common name {@code cn}. */
    public Issued client(String cn) throws Exception {
        KeyPair keys = keyPair();
        X509v3CertificateBuilder builder = builder(new X500Name(caCertificate.getSubjectX500Principal().getName()),
                new X500Name("CN=" + cn + ",O=Sluice Tests"), keys);
        return write("client-" + cn, keys, sign(builder, caKeys.getPrivate()));
    }

    private Issued write(String name, KeyPair keys, X509Certificate certificate) throws IOException, GeneralSecurityException {
        Path keyFile = dir.resolve(name + "-key.pem");
        Path certFile = dir.resolve(name + "-cert.pem");
        Files.writeString(keyFile, pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
        Files.writeString(certFile, pem("CERTIFICATE", certificate.getEncoded()));
        return new Issued(keys.getPrivate(), certificate, keyFile, certFile);
    }

    /** Trusts this CA. */
    public TrustManagerFactory trust() throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("ca", caCertificate);
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory;
    }

    /** Presents {@code issued} as the client's certificate. */
    public KeyManagerFactory keys(Issued issued) throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("client", issued.key(), STORE_PASSWORD, new X509Certificate[] {issued.certificate(), caCertificate});
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(store, STORE_PASSWORD);
        return factory;
    }

    /** A client-side context trusting this CA, presenting {@code client} if not null. */
    public SSLContext clientContext(Issued client) throws GeneralSecurityException, IOException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(client == null ? null : keys(client).getKeyManagers(), trust().getTrustManagers(), null);
        return context;
    }

    public static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        return generator.generateKeyPair();
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(2))), subject,
                keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
    }
}
