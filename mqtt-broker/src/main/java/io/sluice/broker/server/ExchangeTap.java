package io.sluice.broker.server;

import io.sluice.broker.PublishAck;
import io.sluice.broker.Tap;
import io.sluice.broker.message.Message;
import io.sluice.exchange.Exchange;

/**
 * An exchange seen through the broker's {@link Tap}: the routing core hands it every authorised
 * PUBLISH that matches the exchange's topic filter, and it offers a copy to the exchange's ring.
 * The message's payload is never modified after ingress, so the exchange keeps the array itself:
 * no copy. A full ring is the exchange's business (its {@code fullOp}, counted there); forwarding
 * goes on regardless.
 */
final class ExchangeTap implements Tap {
    private final Exchange exchange;

    ExchangeTap(Exchange exchange) {
        this.exchange = exchange;
    }

    @Override
    public String filter() {
        return exchange.topic();
    }

    @Override
    public void capture(Message message, PublishAck ack) {
        exchange.offer(message.topic(), message.payload(), message.createdMillis());
    }
}
