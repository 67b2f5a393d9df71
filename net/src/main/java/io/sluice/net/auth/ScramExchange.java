package io.sluice.net.auth;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) carried in MQTT 5 AUTH packets:
 * <pre>
 * CONNECT  Authentication Data = client-first   n,,n=&lt;user&gt;,r=&lt;client nonce&gt;
 * AUTH 0x18                     = server-first   r=&lt;client nonce + server nonce&gt;,s=&lt;salt&gt;,i=&lt;iterations&gt;
 * AUTH 0x18                     = client-final   c=biws,r=&lt;nonce&gt;,p=&lt;base64 ClientProof&gt;
 * CONNACK 0x00                  = server-final   v=&lt;base64 ServerSignature&gt;
 * </pre>
 * The proof is checked against the user's {@link ScramCredential}, so the server never sees or
 * keeps the password. Channel binding is not offered ({@code p=} is refused; {@code y} and
 * {@code n} are accepted). An unknown user gets a plausible salt derived from its name, and is
 * refused only at the proof, so the exchange does not tell which users exist. User names are
 * compared as sent (no SASLprep). A CONNECT that also carries a User Name must name the same user.
 *
 * <p>One instance per attempt, owned by the connection's event loop.
 */
public final class ScramExchange implements AuthExchange {
    private static final SecureRandom RANDOM = new SecureRandom();

    private enum State { CLIENT_FIRST, CLIENT_FINAL, DONE }

    private final Function<String, ScramCredential> users;
    private final byte[] decoySaltKey;
    private final String connectUsername;
    private final Supplier<String> serverNonces;
    private State state = State.CLIENT_FIRST;
    private String gs2Header;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;
    private String username;
    private ScramCredential credential;
    private boolean knownUser;

    /**
     * @param users           looks a user's verifier up, null if there is none
     * @param decoySaltKey    secret for the salts shown to unknown users
     * @param connectUsername the CONNECT's User Name, or null
     */
    public ScramExchange(Function<String, ScramCredential> users, byte[] decoySaltKey, String connectUsername) {
        this(users, decoySaltKey, connectUsername, ScramExchange::randomNonce);
    }

    /** With chosen server nonces: the test vectors of RFC 7677 need a fixed one. */
    ScramExchange(Function<String, ScramCredential> users, byte[] decoySaltKey, String connectUsername,
                  Supplier<String> serverNonces) {
        this.users = users;
        this.decoySaltKey = decoySaltKey;
        this.connectUsername = connectUsername;
        this.serverNonces = serverNonces;
    }

    private static String randomNonce() {
        byte[] bytes = new byte[18];
        RANDOM.nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    @Override
    public String method() {
        return ScramCredential.MECHANISM;
    }

    @Override
    public Step respond(byte[] clientData) {
        String text = utf8(clientData);
        if (text == null) {
            state = State.DONE;
            return Step.failure("SCRAM message is not UTF-8");
        }
        Step step = switch (state) {
            case CLIENT_FIRST -> clientFirst(text);
            case CLIENT_FINAL -> clientFinal(text);
            case DONE -> Step.failure("SCRAM exchange already finished");
        };
        state = step.kind() == Step.Kind.CONTINUE ? State.CLIENT_FINAL : State.DONE;
        return step;
    }

    private Step clientFirst(String message) {
        // gs2-header: ("n" | "y" | "p=<cb>") "," [authzid] ","
        int first = message.indexOf(',');
        int second = first < 0 ? -1 : message.indexOf(',', first + 1);
        if (second < 0) {
            return Step.failure("malformed client-first-message");
        }
        String flag = message.substring(0, first);
        if (flag.startsWith("p=")) {
            return Step.failure("channel binding is not supported");
        }
        if (!flag.equals("n") && !flag.equals("y")) {
            return Step.failure("malformed channel binding flag '" + flag + "'");
        }
        gs2Header = message.substring(0, second + 1);
        clientFirstBare = message.substring(second + 1);
        String[] attributes = clientFirstBare.split(",", -1);
        if (attributes.length < 2 || !attributes[0].startsWith("n=") || !attributes[1].startsWith("r=")) {
            return Step.failure("client-first-message must start with n=<user>,r=<nonce>");
        }
        username = decodeName(attributes[0].substring(2));
        String authzid = message.substring(first + 1, second);
        if (username == null || username.isEmpty()) {
            return Step.failure("bad SCRAM user name");
        }
        if (!authzid.isEmpty() && !authzid.equals("a=" + attributes[0].substring(2))) {
            return Step.failure("an authorization identity other than the user is not supported");
        }
        if (connectUsername != null && !connectUsername.equals(username)) {
            return Step.failure("CONNECT user name '" + connectUsername + "' differs from SCRAM user '" + username + "'");
        }
        String clientNonce = attributes[1].substring(2);
        if (clientNonce.isEmpty()) {
            return Step.failure("empty client nonce");
        }
        credential = users.apply(username);
        knownUser = credential != null;
        if (!knownUser) {
            credential = decoy(username);
        }
        nonce = clientNonce + serverNonces.get();
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(credential.salt())
                + ",i=" + credential.iterations();
        return Step.proceed(serverFirst.getBytes(StandardCharsets.UTF_8));
    }

    private Step clientFinal(String message) {
        int proofAt = message.lastIndexOf(",p=");
        if (proofAt < 0) {
            return Step.failure("client-final-message without a proof");
        }
        String withoutProof = message.substring(0, proofAt);
        String[] attributes = withoutProof.split(",", -1);
        String binding = Base64.getEncoder().encodeToString(gs2Header.getBytes(StandardCharsets.UTF_8));
        if (attributes.length < 2 || !attributes[0].equals("c=" + binding)) {
            return Step.failure("channel binding data does not match the client-first-message");
        }
        // librdkafka (2.0 at least) sends its client nonce again in front of the full nonce; Kafka's
        // server accepts that by checking the end only, and so do we: the server part, which makes the
        // exchange fresh, must still be there, and the proof covers the message exactly as sent.
        if (!attributes[1].startsWith("r=") || !attributes[1].endsWith(nonce)) {
            return Step.failure("nonce does not match");
        }
        byte[] proof;
        try {
            proof = Base64.getDecoder().decode(message.substring(proofAt + 3));
        } catch (IllegalArgumentException e) {
            return Step.failure("proof is not base64");
        }
        byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
        byte[] clientSignature = ScramCredential.hmac(credential.storedKey(), authMessage);
        if (proof.length != clientSignature.length) {
            return Step.failure("proof has the wrong length");
        }
        byte[] clientKey = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ clientSignature[i]);
        }
        boolean valid = MessageDigest.isEqual(ScramCredential.storedKey(clientKey), credential.storedKey());
        Arrays.fill(clientKey, (byte) 0);
        if (!valid || !knownUser) {
            return Step.failure("invalid proof for user '" + username + "'");
        }
        byte[] serverSignature = ScramCredential.hmac(credential.serverKey(), authMessage);
        String serverFinal = "v=" + Base64.getEncoder().encodeToString(serverSignature);
        return Step.success(serverFinal.getBytes(StandardCharsets.UTF_8), username);
    }

    /** A stable, secret-derived verifier for a user that does not exist; it matches no proof. */
    private ScramCredential decoy(String user) {
        byte[] salt = Arrays.copyOf(ScramCredential.hmac(decoySaltKey, user), 16);
        byte[] key = ScramCredential.hmac(decoySaltKey, "key:" + user);
        return new ScramCredential(salt, ScramCredential.DEFAULT_ITERATIONS, key, key);
    }

    /** saslname of RFC 5802: ',' and '=' arrive as "=2C" and "=3D"; any other '=' is an error (null). */
    private static String decodeName(String saslName) {
        StringBuilder out = new StringBuilder(saslName.length());
        for (int i = 0; i < saslName.length(); i++) {
            char c = saslName.charAt(i);
            if (c != '=') {
                out.append(c);
            } else if (saslName.startsWith("=2C", i)) {
                out.append(',');
                i += 2;
            } else if (saslName.startsWith("=3D", i)) {
                out.append('=');
                i += 2;
            } else {
                return null;
            }
        }
        return out.toString();
    }

    private static String utf8(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
