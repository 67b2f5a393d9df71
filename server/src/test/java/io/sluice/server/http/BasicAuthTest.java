package io.sluice.server.http;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The API's credentials: what is accepted, and how failures from one address are counted and held back. */
class BasicAuthTest {
    private static final InetSocketAddress GUESSER = new InetSocketAddress("192.0.2.7", 40000);
    private static final InetSocketAddress OTHER = new InetSocketAddress("192.0.2.8", 40000);

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void failuresInARowAreHeldBackLongerUntilASuccessFromThatAddress() {
        BasicAuth auth = new BasicAuth("admin", "pw", List.of(), null);
        assertEquals(0, auth.delayMillis(GUESSER));
        for (int i = 1; i <= 3; i++) {
            assertEquals(BasicAuth.Outcome.WRONG, auth.check(basic("admin", "guess" + i), GUESSER));
            assertEquals(250L * i, auth.delayMillis(GUESSER), "after " + i + " failures");
        }
        assertEquals(0, auth.delayMillis(OTHER), "another address is not slowed by the guesser");
        for (int i = 0; i < 100; i++) {
            auth.check(basic("admin", "x"), GUESSER);
        }
        assertEquals(BasicAuth.MAX_DELAY_MILLIS, auth.delayMillis(GUESSER));
        assertEquals(103, auth.failures());

        assertEquals(BasicAuth.Outcome.ACCEPTED, auth.check(basic("admin", "pw"), GUESSER));
        assertEquals(0, auth.delayMillis(GUESSER));
    }

    @Test
    void malformedOrMissingHeadersAreMissingCredentialsNotFailures() {
        BasicAuth auth = new BasicAuth("admin", "pw:with:colons", List.of(), null);
        assertTrue(auth.required());
        for (String header : new String[] {null, "", "Bearer abc", "Basic !!!", "Basic " + Base64.getEncoder()
                .encodeToString("no-colon".getBytes(StandardCharsets.UTF_8))}) {
            assertEquals(BasicAuth.Outcome.MISSING, auth.check(header, GUESSER), String.valueOf(header));
        }
        assertEquals(0, auth.failures());
        assertEquals(BasicAuth.Outcome.ACCEPTED, auth.check(basic("admin", "pw:with:colons"), GUESSER),
                "a password may hold colons; the user name ends at the first");
        assertFalse(new BasicAuth(null, null, List.of(), null).required());
    }
}
