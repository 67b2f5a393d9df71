package io.sluice.broker.connection;

import io.netty.handler.codec.mqtt.MqttReasonCodes;

/**
 * A packet that breaks the protocol badly enough to end the connection. Handlers throw it; the
 * {@link Connection} catches it in one place, sends DISCONNECT with its reason code to MQTT 5
 * clients, closes, and logs the client and the reason.
 */
final class ProtocolViolation extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient MqttReasonCodes.Disconnect reasonCode;

    ProtocolViolation(MqttReasonCodes.Disconnect reasonCode, String reason) {
        super(reason, null, false, false);
        this.reasonCode = reasonCode;
    }

    static ProtocolViolation protocolError(String reason) {
        return new ProtocolViolation(MqttReasonCodes.Disconnect.PROTOCOL_ERROR, reason);
    }

    static ProtocolViolation malformed(String reason) {
        return new ProtocolViolation(MqttReasonCodes.Disconnect.MALFORMED_PACKET, reason);
    }

    MqttReasonCodes.Disconnect reasonCode() {
        return reasonCode;
    }
}
