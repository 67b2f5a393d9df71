package io.sluice.server;

import io.sluice.broker.routing.PublishAck;
import io.sluice.broker.routing.Tap;
import io.sluice.broker.message.Message;
import io.sluice.exchange.Durability;
import io.sluice.exchange.Exchange;

/**
 * An exchange seen through the broker's {@link Tap}: the routing core hands it every authorised
 * PUBLISH that matches the exchange's topic filter, and it offers a copy to the exchange's ring.
 * The message's payload is never modified after ingress, so the exchange keeps the array itself:
 * no copy. A full ring is the exchange's business (its {@code fullOp}, counted there); forwarding
 * goes on regardless.
 *
 * <p>With {@code durability = wal} the tap holds the QoS 1/2 acknowledgement until the exchange's
 * write-ahead log holds the copy durably; a copy the exchange refuses (a full ring, a dead writer, an
 * unwritable log; counted by the exchange) refuses it at once, so a publisher never waits for a copy
 * that will not come, and is never told that one was stored when it was not.
 */
final class ExchangeTap implements Tap {
    private final Exchange exchange;
    private final boolean holdsAcks;

    ExchangeTap(Exchange exchange) {
        this.exchange = exchange;
        this.holdsAcks = exchange.durability() == Durability.WAL;
    }

    @Override
    public String filter() {
        return exchange.topic();
    }

    @Override
    public void capture(Message message, PublishAck ack) {
        if (ack == null || !holdsAcks) {
            exchange.offer(message.topic(), message.payload(), message.createdMillis());
            return;
        }
        ack.hold();
        if (!exchange.offer(message.topic(), message.payload(), message.createdMillis(), ack)) {
            ack.refused();
        }
    }

    @Override
    public boolean holdsAcks() {
        return holdsAcks;
    }
}
