package io.sluice.broker.connection;

import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageIdAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubAckPayload;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttSubscriptionOption;
import io.netty.handler.codec.mqtt.MqttTopicSubscription;
import io.netty.handler.codec.mqtt.MqttUnsubAckMessage;
import io.netty.handler.codec.mqtt.MqttUnsubAckPayload;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import io.sluice.broker.codec.InboundProperties;
import io.sluice.broker.message.Delivery;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.routing.Subscription;
import io.sluice.broker.session.Session;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicFilter;
import io.sluice.net.RefusalLog;

import java.util.List;

/**
 * SUBSCRIBE and UNSUBSCRIBE (MQTT 5 §3.8, §3.10): validates and authorises each filter, holds
 * each client to {@code max_subscriptions} and {@code max_topic_levels}, records it in the
 * session and the router, answers with one reason code per filter, and queues the
 * retained messages the subscription's retain handling asks for, after the SUBACK. Stateless.
 */
final class SubscribeHandler {
    private static final int FAILURE_V3 = 0x80;
    private static final int NOT_AUTHORIZED = 0x87;
    private static final int TOPIC_FILTER_INVALID = 0x8F;
    private static final int QUOTA_EXCEEDED = 0x97;
    private static final int NO_SUBSCRIPTION_EXISTED = 0x11;

    private SubscribeHandler() {
    }

    static void subscribe(Connection c, MqttSubscribeMessage msg) throws ProtocolViolation {
        List<MqttTopicSubscription> requests = msg.payload().topicSubscriptions();
        if (requests.isEmpty()) {
            throw ProtocolViolation.protocolError("SUBSCRIBE without any topic filter");
        }
        int identifier = subscriptionIdentifier(c, msg.idAndPropertiesVariableHeader().properties());
        int[] codes = new int[requests.size()];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = subscribeOne(c, requests.get(i), identifier);
        }
        MqttFixedHeader fixed = new MqttFixedHeader(MqttMessageType.SUBACK, false, MqttQoS.AT_MOST_ONCE, false, 0);
        c.ctx.write(new MqttSubAckMessage(fixed, new MqttMessageIdAndPropertiesVariableHeader(
                msg.idAndPropertiesVariableHeader().messageId(), MqttProperties.NO_PROPERTIES),
                new MqttSubAckPayload(codes)));
    }

    private static int subscriptionIdentifier(Connection c, MqttProperties props) throws ProtocolViolation {
        if (!c.isMqtt5()) {
            return 0;
        }
        if (InboundProperties.count(props, MqttProperties.SUBSCRIPTION_IDENTIFIER) > 1) {
            throw ProtocolViolation.protocolError("more than one Subscription Identifier in SUBSCRIBE");
        }
        long id = InboundProperties.integer(props, MqttProperties.SUBSCRIPTION_IDENTIFIER, -1);
        if (id == 0) {
            throw ProtocolViolation.protocolError("Subscription Identifier of 0");
        }
        return id < 0 ? 0 : (int) id;
    }

    /** Subscribes one filter; returns its SUBACK reason code (the granted QoS on success). */
    private static int subscribeOne(Connection c, MqttTopicSubscription request, int identifier)
            throws ProtocolViolation {
        TopicFilter filter;
        try {
            filter = TopicFilter.parse(request.topicFilter(), c.broker.settings().maxTopicLevels());
        } catch (InvalidTopicException e) {
            c.broker.metrics().increment(BrokerCounter.SUBSCRIBE_REFUSED_INVALID);
            RefusalLog.log("refused subscription of client '{}' from {}: {}", c.clientId(), c.remoteAddress(),
                    e.getMessage());
            return failure(c, TOPIC_FILTER_INVALID);
        }
        MqttSubscriptionOption option = request.option();
        if (filter.isShared() && option.isNoLocal()) {
            throw ProtocolViolation.protocolError("No Local on shared subscription " + filter);
        }
        int refusal = refusal(c, filter);
        if (refusal != 0) {
            return failure(c, refusal);
        }
        // A bridge (bridge bit in CONNECT) never gets back what it published, and keeps RETAIN as published.
        boolean bridge = !c.isMqtt5() && ConnectPeek.isBridge(c.ctx.channel()) && !filter.isShared();
        Subscription subscription = new Subscription(filter, option.qos().value(), option.isNoLocal() || bridge,
                option.isRetainAsPublished() || bridge, option.retainHandling().value(), identifier);
        Session session = c.client().session();
        session.putSubscription(subscription);
        boolean existed = c.broker.router().subscribe(session, subscription);
        queueRetained(c, subscription, existed);
        return subscription.qos();
    }

    /** Why the client may not hold {@code filter}, as an MQTT 5 reason code (counted and logged); 0 if it may. */
    private static int refusal(Connection c, TopicFilter filter) {
        ConnectedClient client = c.client();
        if (!c.broker.authorizer().maySubscribe(client.identity(), filter.filter())) {
            c.broker.metrics().increment(BrokerCounter.SUBSCRIBE_DENIED);
            RefusalLog.log("refused subscription of client '{}' from {} to '{}': not authorised",
                    c.clientId(), c.remoteAddress(), filter);
            return NOT_AUTHORIZED;
        }
        Session session = client.session();
        int max = c.broker.settings().maxSubscriptions();
        if (max > 0 && !session.hasSubscription(filter.raw()) && session.subscriptionCount() >= max) {
            c.broker.metrics().increment(BrokerCounter.SUBSCRIBE_REFUSED_QUOTA);
            RefusalLog.log("refused subscription of client '{}' from {} to '{}': it holds max_subscriptions ({})",
                    c.clientId(), c.remoteAddress(), filter, max);
            return QUOTA_EXCEEDED;
        }
        return 0;
    }

    /** The SUBACK code of a refused filter: MQTT 5 says why, MQTT 3.1.1 knows only 0x80. */
    private static int failure(Connection c, int reasonCode) {
        return c.isMqtt5() ? reasonCode : FAILURE_V3;
    }

    /** Retained messages go out on subscribe unless retain handling says otherwise; never for shared ones. */
    private static void queueRetained(Connection c, Subscription subscription, boolean existed) {
        int handling = subscription.retainHandling();
        if (subscription.filter().isShared() || handling == 2 || (handling == 1 && existed)) {
            return;
        }
        int[] ids = subscription.identifier() > 0 ? new int[] {subscription.identifier()} : Delivery.NO_IDS;
        Session session = c.client().session();
        c.broker.router().retained().match(subscription.filter(), System.currentTimeMillis(), message ->
                session.offer(new Delivery(message, Math.min(message.qos(), subscription.qos()), true, ids, null)));
    }

    static void unsubscribe(Connection c, MqttUnsubscribeMessage msg) throws ProtocolViolation {
        List<String> filters = msg.payload().topics();
        if (filters.isEmpty()) {
            throw ProtocolViolation.protocolError("UNSUBSCRIBE without any topic filter");
        }
        short[] codes = new short[filters.size()];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = (short) unsubscribeOne(c, filters.get(i));
        }
        MqttFixedHeader fixed = new MqttFixedHeader(MqttMessageType.UNSUBACK, false, MqttQoS.AT_MOST_ONCE, false, 0);
        c.ctx.write(new MqttUnsubAckMessage(fixed, new MqttMessageIdAndPropertiesVariableHeader(
                msg.idAndPropertiesVariableHeader().messageId(), MqttProperties.NO_PROPERTIES),
                new MqttUnsubAckPayload(codes)));
    }

    private static int unsubscribeOne(Connection c, String raw) {
        TopicFilter filter;
        try {
            filter = TopicFilter.parse(raw, 0);
        } catch (InvalidTopicException e) {
            return TOPIC_FILTER_INVALID;
        }
        Session session = c.client().session();
        Subscription removed = session.removeSubscription(filter.raw());
        boolean existed = removed != null && c.broker.router().unsubscribe(session, filter);
        return existed ? 0 : NO_SUBSCRIPTION_EXISTED;
    }
}
