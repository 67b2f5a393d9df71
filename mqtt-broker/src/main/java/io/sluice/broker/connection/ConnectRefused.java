package io.sluice.broker.connection;

import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.sluice.net.auth.Authenticator;

import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED;
import static io.netty.handler.codec.mqtt.MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED_5;

/**
 * A CONNECT the broker turns down with a CONNACK return code (MQTT 5 §3.2.2.2, 3.1.1 §3.2.2.3).
 * Thrown while CONNECT or the AUTH packets of its authentication are handled; the
 * {@link Connection} catches it in one place, answers CONNACK with the code, closes, and logs the
 * client and the reason. The code must be one the client's protocol version knows.
 */
final class ConnectRefused extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient MqttConnectReturnCode code;
    private final boolean authentication;

    ConnectRefused(MqttConnectReturnCode code, String reason) {
        this(code, reason, false);
    }

    private ConnectRefused(MqttConnectReturnCode code, String reason, boolean authentication) {
        super(reason, null, false, false);
        this.code = code;
        this.authentication = authentication;
    }

    /** Failed authentication, with the code the protocol version has for {@code verdict}. */
    static ConnectRefused credentials(Authenticator.Verdict verdict, boolean mqtt5, String reason) {
        boolean bad = verdict == Authenticator.Verdict.BAD_CREDENTIALS;
        MqttConnectReturnCode code = mqtt5
                ? (bad ? CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD : CONNECTION_REFUSED_NOT_AUTHORIZED_5)
                : (bad ? CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD : CONNECTION_REFUSED_NOT_AUTHORIZED);
        return new ConnectRefused(code, reason, true);
    }

    /** CONNECT names an Authentication Method the authenticator does not offer (MQTT 5 only). */
    static ConnectRefused unsupportedMethod(String method) {
        return new ConnectRefused(CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD,
                "unsupported authentication method '" + method + "'", true);
    }

    MqttConnectReturnCode code() {
        return code;
    }

    /** Whether authentication failed, which counts as {@code connections_refused_auth} too. */
    boolean isAuthentication() {
        return authentication;
    }
}
