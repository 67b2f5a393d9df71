package io.sluice.broker.connection;

import io.netty.handler.codec.mqtt.MqttReasonCodes;

import java.util.HashMap;

/**
 * The Topic Alias maps of one MQTT 5 connection (§3.3.2.3.4), one per direction: inbound aliases
 * the client set up, limited by our Topic Alias Maximum; outbound aliases we assign, limited by
 * the client's. Both live and die with the network connection. Owned by the connection's event loop.
 */
final class TopicAliases {
    private final String[] inbound;
    private final int outboundMaximum;
    private final HashMap<String, Integer> outbound = new HashMap<>();

    TopicAliases(int inboundMaximum, int outboundMaximum) {
        this.inbound = new String[inboundMaximum + 1];
        this.outboundMaximum = outboundMaximum;
    }

    /**
     * Resolves the topic of an inbound PUBLISH: an alias with a topic sets the alias, an alias
     * with an empty topic uses it.
     */
    String resolveInbound(String topic, int alias) throws ProtocolViolation {
        if (alias == 0 || alias >= inbound.length) {
            throw new ProtocolViolation(MqttReasonCodes.Disconnect.TOPIC_ALIAS_INVALID,
                    "topic alias " + alias + " is outside 1.." + (inbound.length - 1));
        }
        if (!topic.isEmpty()) {
            inbound[alias] = topic;
            return topic;
        }
        String known = inbound[alias];
        if (known == null) {
            throw ProtocolViolation.protocolError("topic alias " + alias + " was never set");
        }
        return known;
    }

    /** The alias already assigned to {@code topic}, or 0. */
    int outboundAlias(String topic) {
        Integer alias = outbound.get(topic);
        return alias == null ? 0 : alias;
    }

    /** Assigns the next free alias to {@code topic}; returns 0 when the client's maximum is used up. */
    int assignOutbound(String topic) {
        if (outbound.size() >= outboundMaximum) {
            return 0;
        }
        int alias = outbound.size() + 1;
        outbound.put(topic, alias);
        return alias;
    }
}
