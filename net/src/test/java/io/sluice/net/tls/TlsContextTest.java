package io.sluice.net.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslEngine;
import io.netty.handler.ssl.SslHandler;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.InvalidKeyException;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The key-and-certificate check of a TLS context, on PEM files made by the JDK's own keytool. */
class TlsContextTest {
    private static final String PASSWORD = "changeit";

    @TempDir
    static Path dir;

    /** Key and certificate "a" (EC) from keytool; keys "b" (EC) and "r" (RSA) without certificates. */
    @BeforeAll
    static void makeKeys() throws Exception {
        keytool("a", "-keyalg", "EC", "-groupname", "secp256r1");
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("keys.p12"))) {
            store.load(in, PASSWORD.toCharArray());
        }
        Files.writeString(key("a"), pem("PRIVATE KEY", store.getKey("a", PASSWORD.toCharArray()).getEncoded()));
        Files.writeString(cert("a"), pem("CERTIFICATE", store.getCertificate("a").getEncoded()));
        Files.writeString(key("b"), pem("PRIVATE KEY", newKey("EC", 256)));
        Files.writeString(key("r"), pem("PRIVATE KEY", newKey("RSA", 2048)));
    }

    private static byte[] newKey(String algorithm, int size) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
        generator.initialize(size);
        return generator.generateKeyPair().getPrivate().getEncoded();
    }

    @Test
    void aKeyWithItsOwnCertificateLoads() throws Exception {
        TlsContext tls = new TlsContext(settings(key("a"), cert("a")));
        assertEquals("CN=a", tls.certificate().getSubjectX500Principal().getName());
    }

    /** The build ships BoringSSL for linux-x86_64 only; elsewhere the JDK's TLS is the documented fallback. */
    @Test
    void onLinuxX8664ConnectionsGetAnOpenSslEngine() throws Exception {
        assumeTrue(System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64"),
                "netty-tcnative is shipped for linux-x86_64 only");
        assertTrue(OpenSsl.isAvailable(), () -> "OpenSSL unavailable: " + OpenSsl.unavailabilityCause());
        SslHandler handler = new TlsContext(settings(key("a"), cert("a"))).newHandler(ByteBufAllocator.DEFAULT);
        assertInstanceOf(OpenSslEngine.class, handler.engine());
        handler.engine().closeOutbound();
    }

    @Test
    void theKeyOfAnotherPairIsRefusedAsNotBelongingToTheCertificate() {
        IOException e = assertThrows(IOException.class, () -> new TlsContext(settings(key("b"), cert("a"))));
        assertEquals("the EC key in " + key("b") + " does not belong to the certificate in " + cert("a")
                + " (CN=a, whose key is EC)", e.getMessage());
        assertNull(e.getCause(), "the signature simply did not verify");
    }

    @Test
    void aKeyOfAnotherKindIsRefusedWithBothKindsAndTheCause() {
        IOException e = assertThrows(IOException.class, () -> new TlsContext(settings(key("r"), cert("a"))));
        assertTrue(e.getMessage().startsWith("the RSA key in " + key("r") + " does not belong to the certificate in "
                + cert("a") + " (CN=a, whose key is EC): java.security.InvalidKeyException"), e.getMessage());
        assertInstanceOf(InvalidKeyException.class, e.getCause());
    }

    private static TlsSettings settings(Path key, Path cert) {
        return new TlsSettings(key, cert, null, null, false, false, false);
    }

    private static Path key(String alias) {
        return dir.resolve(alias + "-key.pem");
    }

    private static Path cert(String alias) {
        return dir.resolve(alias + "-cert.pem");
    }

    private static void keytool(String alias, String... keyOptions) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair", "-noprompt",
                "-keystore", dir.resolve("keys.p12").toString(), "-storetype", "PKCS12", "-storepass", PASSWORD,
                "-alias", alias, "-dname", "CN=" + alias, "-validity", "2"));
        command.addAll(List.of(keyOptions));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "keytool finished");
        assertEquals(0, process.exitValue(), output);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
