package io.sluice.server;

import java.util.ArrayList;
import java.util.List;

import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.LocalPublisher;
import io.sluice.broker.Broker;
import io.sluice.broker.routing.PublishAck;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.message.UserProperty;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicName;
import io.sluice.broker.session.SessionJournal;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.storage.Receipt;

/**
 * What bridges receive from their remotes, published into the broker as a local client's PUBLISH
 * is: the topic is checked ({@code $SYS} is refused, as for clients), the ACL decides with the
 * bridge's identity ({@code bridge:<name>}), the message is counted as received and routed, and the
 * QoS 1/2 acknowledgement to the remote waits, as a local publisher's PUBACK does, until broker state
 * and every capture or bridge that promises durability hold the message. The broker is set once it
 * exists: bridges open before it (their taps are part of it) and start after it.
 */
final class BrokerPublisher implements LocalPublisher {
    private volatile Broker broker;

    void bind(Broker broker) {
        this.broker = broker;
    }

    @Override
    public Outcome publish(ClientIdentity publisher, BridgeMessage message, Runnable done) {
        Broker b = broker;
        if (b == null) {
            done.run();
            return Outcome.INVALID_TOPIC;
        }
        String topic = message.topic();
        try {
            TopicName.validate(topic, b.settings().maxTopicLevels());
        } catch (InvalidTopicException e) {
            b.metrics().increment(BrokerCounter.PUBLISH_DROPPED_INVALID);
            done.run();
            return Outcome.INVALID_TOPIC;
        }
        if (topic.startsWith("$SYS")) {
            done.run();
            return Outcome.INVALID_TOPIC;
        }
        if (!b.authorizer().mayPublish(publisher, topic)) {
            b.metrics().increment(BrokerCounter.PUBLISH_DENIED);
            done.run();
            return Outcome.DENIED;
        }
        b.metrics().increment(BrokerCounter.MESSAGES_RECEIVED);
        Message routed = new Message(topic, message.payload(), message.qos(), message.retain(),
                properties(message.properties()), publisher.clientId(), message.createdMillis());
        if (message.qos() == 0) {
            b.router().publish(routed);
            done.run();
            return Outcome.ACCEPTED;
        }
        PublishAck ack = new PublishAck() {
            @Override
            protected void ready() {
                if (stored()) {
                    done.run();
                } else {
                    Receipt.refuse(done);
                }
            }
        };
        b.router().publish(routed, ack);
        SessionJournal journal = b.sessions().journal();
        if (journal.enabled()) {
            ack.hold();
            journal.whenWritten(ack);
        }
        ack.release();
        return Outcome.ACCEPTED;
    }

    private static MessageProperties properties(io.sluice.bridges.MessageProperties p) {
        if (p == io.sluice.bridges.MessageProperties.NONE) {
            return MessageProperties.NONE;
        }
        List<UserProperty> users = new ArrayList<>(p.userProperties().size());
        p.userProperties().forEach(u -> users.add(new UserProperty(u.name(), u.value())));
        return new MessageProperties(p.payloadFormat(), p.expiryInterval(), p.contentType(), p.responseTopic(),
                p.correlationData(), users);
    }
}
