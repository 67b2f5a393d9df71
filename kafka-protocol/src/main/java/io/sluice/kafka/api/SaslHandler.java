package io.sluice.kafka.api;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslHandshakeRequest;

import io.sluice.net.auth.AuthExchange;
import io.sluice.net.auth.Authenticator;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.net.auth.ScramCredential;

/**
 * SaslHandshake and SaslAuthenticate (KIP-152: the SASL tokens travel in SaslAuthenticate
 * requests), with the users of the password file, the same ones MQTT clients log in as:
 * <ul>
 *  <li>{@code PLAIN} (RFC 4616): {@code [authzid] NUL user NUL password}; an authorization id other
 *      than the user is refused;</li>
 *  <li>{@code SCRAM-SHA-256} (RFC 5802, 7677): the server side of net's SCRAM exchange, which never
 *      sees the password.</li>
 * </ul>
 * A failed authentication is answered SASL_AUTHENTICATION_FAILED and the connection is closed
 * after the answer, as Kafka does. Without SASL a connection is anonymous, which the listener
 * allows only when {@code auth.allow_anonymous} does.
 */
final class SaslHandler {
    static final String PLAIN = "PLAIN";
    private static final List<String> MECHANISMS = List.of(PLAIN, ScramCredential.MECHANISM);

    /** A SASL answer, and whether the connection must close once it is sent. */
    record Outcome(SaslAuthenticateResponseData response, boolean close) {
    }

    private final Authenticator authenticator;

    SaslHandler(Authenticator authenticator) {
        this.authenticator = authenticator;
    }

    SaslHandshakeResponseData handshake(Request request) {
        String mechanism = request.as(SaslHandshakeRequest.class).data().mechanism();
        SaslHandshakeResponseData response = new SaslHandshakeResponseData().setMechanisms(MECHANISMS);
        if (request.session().isAuthenticated() || request.session().mechanism() != null) {
            return response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code());
        }
        if (!MECHANISMS.contains(mechanism)) {
            return response.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code());
        }
        request.session().mechanism(mechanism);
        return response;
    }

    Outcome authenticate(Request request) {
        Session session = request.session();
        byte[] token = request.as(SaslAuthenticateRequest.class).data().authBytes();
        if (session.isAuthenticated() || session.mechanism() == null) {
            return failed(Errors.ILLEGAL_SASL_STATE, "SaslAuthenticate without a SaslHandshake before it, or after success");
        }
        ClientIdentity client = new ClientIdentity(request.header().clientId(), null, session.address());
        return PLAIN.equals(session.mechanism()) ? plain(session, client, token) : scram(session, client, token);
    }

    private Outcome plain(Session session, ClientIdentity client, byte[] token) {
        String text = new String(token, StandardCharsets.UTF_8);
        String[] parts = text.split("\u0000", -1);
        if (parts.length != 3 || parts[1].isEmpty()) {
            return failed(Errors.SASL_AUTHENTICATION_FAILED, "malformed PLAIN message");
        }
        if (!parts[0].isEmpty() && !parts[0].equals(parts[1])) {
            return failed(Errors.SASL_AUTHENTICATION_FAILED, "an authorization id other than the user is not supported");
        }
        ClientIdentity user = new ClientIdentity(client.clientId(), parts[1], client.address());
        if (authenticator.authenticate(user, parts[2].getBytes(StandardCharsets.UTF_8)) != Authenticator.Verdict.ACCEPTED) {
            return failed(Errors.SASL_AUTHENTICATION_FAILED, "authentication failed: invalid user name or password");
        }
        session.authenticated(parts[1]);
        return new Outcome(new SaslAuthenticateResponseData().setAuthBytes(new byte[0]), false);
    }

    private Outcome scram(Session session, ClientIdentity client, byte[] token) {
        AuthExchange exchange = session.scram();
        if (exchange == null) {
            exchange = authenticator.startExchange(ScramCredential.MECHANISM, client);
            if (exchange == null) {
                return failed(Errors.SASL_AUTHENTICATION_FAILED, "SCRAM-SHA-256 needs auth.password_file");
            }
            session.scram(exchange);
        }
        AuthExchange.Step step = exchange.respond(token);
        return switch (step.kind()) {
            case CONTINUE -> new Outcome(new SaslAuthenticateResponseData().setAuthBytes(step.data()), false);
            case SUCCESS -> {
                session.authenticated(step.username());
                yield new Outcome(new SaslAuthenticateResponseData().setAuthBytes(step.data()), false);
            }
            case FAILURE -> failed(Errors.SASL_AUTHENTICATION_FAILED, "authentication failed: " + step.reason());
        };
    }

    private static Outcome failed(Errors error, String message) {
        return new Outcome(new SaslAuthenticateResponseData().setErrorCode(error.code()).setErrorMessage(message)
                .setAuthBytes(new byte[0]), true);
    }
}
