package io.sluice.net.tls;

import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the PEM files of a TLS listener: {@code -----BEGIN CERTIFICATE-----} blocks (a chain or
 * a CA bundle; text between blocks is ignored) and one private key in PKCS#8 form,
 * {@code -----BEGIN PRIVATE KEY-----} or {@code -----BEGIN ENCRYPTED PRIVATE KEY-----} with a
 * password (RSA, EC, Ed25519 or Ed448). Older {@code BEGIN RSA PRIVATE KEY} / {@code BEGIN EC
 * PRIVATE KEY} files are refused with the command that converts them. Every error names the file.
 */
final class PemFiles {
    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----");
    private static final String[] KEY_ALGORITHMS = {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS"};

    private PemFiles() {
    }

    private record Block(String type, byte[] der) {
    }

    private static List<Block> blocks(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IOException(file + ": cannot read: " + e.getMessage(), e);
        }
        List<Block> blocks = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            String body = m.group(2);
            if (body.contains(":")) {
                throw new IOException(file + ": " + m.group(1) + " has PEM headers (legacy encryption);"
                        + " convert it with: openssl pkcs8 -topk8 -in OLD -out NEW");
            }
            try {
                blocks.add(new Block(m.group(1), Base64.getMimeDecoder().decode(body)));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ": " + m.group(1) + " block is not valid base64", e);
            }
        }
        if (blocks.isEmpty()) {
            throw new IOException(file + ": no PEM block (-----BEGIN ...-----) found");
        }
        return blocks;
    }

    /** Every certificate in {@code file}, in file order. */
    static List<X509Certificate> certificates(Path file) throws IOException {
        List<X509Certificate> certificates = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (Block block : blocks(file)) {
                if (block.type().equals("CERTIFICATE")) {
                    certificates.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
                }
            }
        } catch (GeneralSecurityException e) {
            throw new IOException(file + ": not a valid X.509 certificate: " + e.getMessage(), e);
        }
        if (certificates.isEmpty()) {
            throw new IOException(file + ": no -----BEGIN CERTIFICATE----- block found");
        }
        return certificates;
    }

    /** The private key in {@code file}; {@code password} is needed for an encrypted one. */
    static PrivateKey privateKey(Path file, String password) throws IOException {
        for (Block block : blocks(file)) {
            switch (block.type()) {
                case "PRIVATE KEY":
                    return pkcs8(file, block.der());
                case "ENCRYPTED PRIVATE KEY":
                    return pkcs8(file, decrypt(file, block.der(), password));
                case "RSA PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY":
                    throw new IOException(file + ": " + block.type() + " is not PKCS#8; convert it with:"
                            + " openssl pkcs8 -topk8 -nocrypt -in OLD -out NEW");
                default:
                    // skip parameters and certificates that share the file
            }
        }
        throw new IOException(file + ": no -----BEGIN PRIVATE KEY----- block found");
    }

    private static byte[] decrypt(Path file, byte[] der, String password) throws IOException {
        if (password == null) {
            throw new IOException(file + ": the key is encrypted; set key_password");
        }
        try {
            EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
            String algorithm = info.getAlgName();
            if (algorithm.equals("PBES2") || algorithm.equals("1.2.840.113549.1.5.13")) {
                algorithm = info.getAlgParameters().toString(); // e.g. PBEWithHmacSHA256AndAES_256
            }
            SecretKeyFactory factory = SecretKeyFactory.getInstance(algorithm);
            Cipher cipher = Cipher.getInstance(algorithm);
            cipher.init(Cipher.DECRYPT_MODE, factory.generateSecret(new PBEKeySpec(password.toCharArray())),
                    info.getAlgParameters());
            return info.getKeySpec(cipher).getEncoded();
        } catch (IOException | GeneralSecurityException e) {
            throw new IOException(file + ": cannot decrypt the key (wrong key_password?): " + e.getMessage(), e);
        }
    }

    private static PrivateKey pkcs8(Path file, byte[] der) throws IOException {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IOException(file + ": not an RSA, EC, Ed25519 or Ed448 private key");
    }
}
