package io.sluice.server;

import java.util.ArrayList;
import java.util.List;

import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.Forwarder;
import io.sluice.bridges.UserProperty;
import io.sluice.broker.routing.PublishAck;
import io.sluice.broker.routing.Tap;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;

/**
 * One forward rule of a bridge seen through the broker's {@link Tap}: the routing core hands it every
 * authorised PUBLISH matching the rule's {@code local_topic}, and it passes a copy to the bridge. A
 * QoS 1/2 acknowledgement is held until the bridge's backlog holds the copy durably (the bridge's
 * writer thread releases it, so the event loop never waits for the disk); a copy the bridge cannot
 * store (a full queue or backlog, a failed write; counted) refuses it, so the publisher is not told
 * it was stored; a copy the rule does not store at all (an unstored QoS 0 copy, $SYS) releases it
 * at once.
 */
final class BridgeTap implements Tap {
    private final Forwarder forwarder;

    BridgeTap(Forwarder forwarder) {
        this.forwarder = forwarder;
    }

    @Override
    public String filter() {
        return forwarder.filter();
    }

    @Override
    public void capture(Message message, PublishAck ack) {
        BridgeMessage copy = new BridgeMessage(message.topic(), message.payload(), message.qos(), message.retain(),
                properties(message.properties()), message.publisherId(), message.createdMillis());
        if (ack == null) {
            forwarder.forward(copy, null);
            return;
        }
        ack.hold();
        if (!forwarder.forward(copy, ack)) {
            ack.release(); // the rule does not store this message; a refusal to store it was settled inside
        }
    }

    @Override
    public boolean holdsAcks() {
        return true;
    }

    /** The broker's message properties as the bridges module keeps them. */
    static io.sluice.bridges.MessageProperties properties(MessageProperties p) {
        if (p == MessageProperties.NONE) {
            return io.sluice.bridges.MessageProperties.NONE;
        }
        List<UserProperty> users = new ArrayList<>(p.userProperties().size());
        p.userProperties().forEach(u -> users.add(new UserProperty(u.name(), u.value())));
        return new io.sluice.bridges.MessageProperties(p.payloadFormat(), p.expiryInterval(), p.contentType(),
                p.responseTopic(), p.correlationData(), users);
    }
}
