package io.sluice.net.auth;

/**
 * The server's side of one MQTT 5 enhanced authentication (§4.12): the client's Authentication
 * Data goes in, one {@link Step} comes out, until the exchange succeeds or fails. Owned by the
 * connection's event loop; one instance per attempt.
 */
public interface AuthExchange {
    /** The Authentication Method, echoed in every AUTH and in CONNACK. */
    String method();

    /** Answers the client's next Authentication Data (from CONNECT first, then from each AUTH). */
    Step respond(byte[] clientData);

    /**
     * One answer: {@code CONTINUE} sends {@code data} in AUTH 0x18; {@code SUCCESS} sends it in
     * CONNACK (or AUTH 0x00 on re-authentication) and names the authenticated user;
     * {@code FAILURE} refuses with {@code reason} in the log.
     */
    record Step(Kind kind, byte[] data, String username, String reason) {
        public enum Kind { CONTINUE, SUCCESS, FAILURE }

        public static Step proceed(byte[] data) {
            return new Step(Kind.CONTINUE, data, null, null);
        }

        public static Step success(byte[] data, String username) {
            return new Step(Kind.SUCCESS, data, username, null);
        }

        public static Step failure(String reason) {
            return new Step(Kind.FAILURE, null, null, reason);
        }
    }
}
