package io.sluice.net.testing;

import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * The client side of SCRAM-SHA-256 (RFC 5802/7677), written independently of the broker's
 * server side so that each checks the other.
 */
public final class ScramClient {
    private final String user;
    private final String password;
    private final String clientNonce;
    private String clientFirstBare;
    private byte[] serverSignature;

    public ScramClient(String user, String password) {
        this(user, password, randomNonce());
    }

    public ScramClient(String user, String password, String clientNonce) {
        this.user = user;
        this.password = password;
        this.clientNonce = clientNonce;
    }

    private static String randomNonce() {
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    public byte[] clientFirst() {
        clientFirstBare = "n=" + user.replace("=", "=3D").replace(",", "=2C") + ",r=" + clientNonce;
        return ("n,," + clientFirstBare).getBytes(StandardCharsets.UTF_8);
    }

    public byte[] clientFinal(byte[] serverFirstBytes) throws GeneralSecurityException {
        String serverFirst = new String(serverFirstBytes, StandardCharsets.UTF_8);
        Map<String, String> attributes = attributes(serverFirst);
        String nonce = attributes.get("r");
        if (!nonce.startsWith(clientNonce)) {
            throw new IllegalStateException("server nonce does not extend ours: " + serverFirst);
        }
        byte[] salt = Base64.getDecoder().decode(attributes.get("s"));
        int iterations = Integer.parseInt(attributes.get("i"));
        SecretKeyFactory factory = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
        byte[] salted = factory.generateSecret(new PBEKeySpec(password.toCharArray(), salt, iterations, 256)).getEncoded();
        byte[] clientKey = hmac(salted, "Client Key".getBytes(StandardCharsets.UTF_8));
        byte[] storedKey = MessageDigest.getInstance("SHA-256").digest(clientKey);
        String withoutProof = "c=biws,r=" + nonce;
        byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
        byte[] signature = hmac(storedKey, authMessage);
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ signature[i]);
        }
        serverSignature = hmac(hmac(salted, "Server Key".getBytes(StandardCharsets.UTF_8)), authMessage);
        return (withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof)).getBytes(StandardCharsets.UTF_8);
    }

    /** Whether the server-final-message proves the server knows the verifier. */
    public boolean serverFinalValid(byte[] serverFinal) {
        String text = new String(serverFinal, StandardCharsets.UTF_8);
        return text.startsWith("v=") && MessageDigest.isEqual(serverSignature,
                Base64.getDecoder().decode(text.substring(2)));
    }

    private static Map<String, String> attributes(String message) {
        Map<String, String> map = new HashMap<>();
        for (String part : message.split(",")) {
            map.put(part.substring(0, 1), part.substring(2));
        }
        return map;
    }

    private static byte[] hmac(byte[] key, byte[] data) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
    }
}
