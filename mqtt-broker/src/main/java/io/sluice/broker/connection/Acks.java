package io.sluice.broker.connection;

import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;

/**
 * Builds the four QoS acknowledgements. A reason code of 0 without properties encodes as the
 * bare packet id, which is also the only form MQTT 3.x knows; netty's encoder chooses the form.
 */
final class Acks {
    private static final MqttFixedHeader PUBACK = header(MqttMessageType.PUBACK, MqttQoS.AT_MOST_ONCE);
    private static final MqttFixedHeader PUBREC = header(MqttMessageType.PUBREC, MqttQoS.AT_MOST_ONCE);
    // PUBREL's fixed-header flags are 0010 (MQTT 5 §3.6.1), which the encoder takes from the QoS bits.
    private static final MqttFixedHeader PUBREL = header(MqttMessageType.PUBREL, MqttQoS.AT_LEAST_ONCE);
    private static final MqttFixedHeader PUBCOMP = header(MqttMessageType.PUBCOMP, MqttQoS.AT_MOST_ONCE);

    private Acks() {
    }

    private static MqttFixedHeader header(MqttMessageType type, MqttQoS qos) {
        return new MqttFixedHeader(type, false, qos, false, 0);
    }

    static MqttMessage pubAck(int packetId, int reasonCode) {
        return reply(PUBACK, packetId, reasonCode);
    }

    static MqttMessage pubRec(int packetId, int reasonCode) {
        return reply(PUBREC, packetId, reasonCode);
    }

    static MqttMessage pubRel(int packetId, int reasonCode) {
        return reply(PUBREL, packetId, reasonCode);
    }

    static MqttMessage pubComp(int packetId, int reasonCode) {
        return reply(PUBCOMP, packetId, reasonCode);
    }

    private static MqttMessage reply(MqttFixedHeader header, int packetId, int reasonCode) {
        return new MqttMessage(header,
                new MqttPubReplyMessageVariableHeader(packetId, (byte) reasonCode, MqttProperties.NO_PROPERTIES));
    }
}
