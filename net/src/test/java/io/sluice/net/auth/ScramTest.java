package io.sluice.net.auth;

import io.sluice.net.auth.AuthExchange;
import io.sluice.net.auth.ScramCredential;
import io.sluice.net.auth.ScramExchange;
import io.sluice.net.testing.ScramClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScramTest {
    private static final byte[] DECOY_KEY = "decoy key for the tests".getBytes(StandardCharsets.UTF_8);

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theServerReproducesTheTestVectorOfRfc7677() {
        ScramCredential pencil = ScramCredential.derive("pencil".toCharArray(),
                Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
        ScramExchange server = new ScramExchange(Map.of("user", pencil)::get, DECOY_KEY, null,
                () -> "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");

        AuthExchange.Step first = server.respond(utf8("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"));
        assertEquals(AuthExchange.Step.Kind.CONTINUE, first.kind());
        assertEquals("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
                new String(first.data(), StandardCharsets.UTF_8));

        AuthExchange.Step last = server.respond(utf8("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="));
        assertEquals(AuthExchange.Step.Kind.SUCCESS, last.kind(), last.reason());
        assertEquals("user", last.username());
        assertEquals("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", new String(last.data(), StandardCharsets.UTF_8));
    }

    @Test
    void anIndependentClientAndTheServerAgreeAndTheClientCanCheckTheServer() throws Exception {
        ScramCredential credential = ScramCredential.create("s3cret, with = signs".toCharArray(), 4096);
        ScramExchange server = new ScramExchange(Map.of("a,b=c", credential)::get, DECOY_KEY, null);
        ScramClient client = new ScramClient("a,b=c", "s3cret, with = signs");

        AuthExchange.Step first = server.respond(client.clientFirst());
        AuthExchange.Step last = server.respond(client.clientFinal(first.data()));

        assertEquals(AuthExchange.Step.Kind.SUCCESS, last.kind(), last.reason());
        assertEquals("a,b=c", last.username(), "=2C and =3D are decoded");
        assertTrue(client.serverFinalValid(last.data()));
    }

    @Test
    void aWrongPasswordFailsAtTheProof() throws Exception {
        ScramCredential credential = ScramCredential.create("right".toCharArray(), 4096);
        ScramExchange server = new ScramExchange(Map.of("alice", credential)::get, DECOY_KEY, null);
        ScramClient client = new ScramClient("alice", "wrong");

        AuthExchange.Step last = server.respond(client.clientFinal(server.respond(client.clientFirst()).data()));

        assertEquals(AuthExchange.Step.Kind.FAILURE, last.kind());
        assertTrue(last.reason().contains("invalid proof"), last.reason());
    }

    @Test
    void anUnknownUserGetsAStablePlausibleChallengeAndFailsOnlyAtTheProof() throws Exception {
        ScramExchange first = new ScramExchange(Map.<String, ScramCredential>of()::get, DECOY_KEY, null);
        ScramExchange second = new ScramExchange(Map.<String, ScramCredential>of()::get, DECOY_KEY, null);
        ScramClient client = new ScramClient("mallory", "guess");

        AuthExchange.Step challenge = first.respond(client.clientFirst());
        AuthExchange.Step again = second.respond(new ScramClient("mallory", "guess").clientFirst());

        assertEquals(AuthExchange.Step.Kind.CONTINUE, challenge.kind());
        String salt = new String(challenge.data(), StandardCharsets.UTF_8).replaceAll(".*,s=([^,]*),.*", "$1");
        String saltAgain = new String(again.data(), StandardCharsets.UTF_8).replaceAll(".*,s=([^,]*),.*", "$1");
        assertEquals(salt, saltAgain, "the same user always sees the same salt, as a real one would");
        assertEquals(AuthExchange.Step.Kind.FAILURE, first.respond(client.clientFinal(challenge.data())).kind());
    }

    @Test
    void malformedOrTamperedMessagesFail() throws Exception {
        ScramCredential credential = ScramCredential.create("pw".toCharArray(), 4096);
        Map<String, ScramCredential> users = Map.of("bob", credential);

        assertFailure(new ScramExchange(users::get, DECOY_KEY, null).respond(utf8("p=tls-unique,,n=bob,r=abc")),
                "channel binding");
        assertFailure(new ScramExchange(users::get, DECOY_KEY, null).respond(utf8("n,,r=abc")), "n=<user>");
        assertFailure(new ScramExchange(users::get, DECOY_KEY, "alice").respond(utf8("n,,n=bob,r=abc")), "differs");
        assertFailure(new ScramExchange(users::get, DECOY_KEY, null).respond(new byte[] {(byte) 0xC3, 0x28}), "UTF-8");

        ScramExchange server = new ScramExchange(users::get, DECOY_KEY, null);
        ScramClient client = new ScramClient("bob", "pw");
        String clientFinal = new String(client.clientFinal(server.respond(client.clientFirst()).data()),
                StandardCharsets.UTF_8);
        assertFailure(server.respond(utf8(clientFinal.replaceFirst("(r=[^,]*)", "$1x"))), "nonce");
        assertFailure(server.respond(utf8(clientFinal)), "finished");
    }

    private static void assertFailure(AuthExchange.Step step, String reason) {
        assertEquals(AuthExchange.Step.Kind.FAILURE, step.kind());
        assertTrue(step.reason().contains(reason), step.reason());
    }

    @Test
    void aCredentialChecksPlainPasswordsAndRoundTripsItsTextForm() {
        ScramCredential credential = ScramCredential.create("pässwörd".toCharArray(), 4096);

        assertTrue(credential.verify(utf8("pässwörd")));
        assertFalse(credential.verify(utf8("passwort")));
        assertFalse(credential.verify(new byte[0]));
        assertFalse(credential.verify(new byte[] {(byte) 0xFF}), "not UTF-8 never matches");

        String text = credential.encode();
        assertTrue(text.startsWith("SCRAM-SHA-256$4096:"), text);
        assertEquals(credential, ScramCredential.parse(text));
        assertArrayEquals(credential.storedKey(), ScramCredential.parse(text).storedKey());
        assertFalse(credential.toString().contains(Base64.getEncoder().encodeToString(credential.storedKey())));
        assertNotEquals(credential, ScramCredential.create("pässwörd".toCharArray(), 4096), "salts differ");
    }

    @Test
    void aBrokenTextFormSaysWhatIsWrong() {
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.parse("plain-text-password"));
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.parse("SCRAM-SHA-256$many:AA==$AA==:AA=="));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ScramCredential.parse("SCRAM-SHA-256$10:AAAA$AAAA:AAAA"));
        assertTrue(e.getMessage().contains("iterations"), e.getMessage());
    }
}
