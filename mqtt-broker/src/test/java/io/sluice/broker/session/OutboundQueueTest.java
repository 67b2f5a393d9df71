package io.sluice.broker.session;

import io.sluice.broker.message.Delivery;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When a queue counts as a backlog that holds its publishers ({@link DrainLag}). */
class OutboundQueueTest {

    private static void fill(OutboundQueue queue, int messages, int payloadBytes) {
        for (int i = 0; i < messages; i++) {
            Message message = new Message("t", new byte[payloadBytes], 0, false, MessageProperties.NONE, "p", 0);
            queue.add(new PendingDelivery(i, Delivery.of(message, 0, false)));
        }
    }

    @Test
    void halfOfTheMessageBoundIsABacklog() {
        OutboundQueue queue = new OutboundQueue(1000, 0, QueueBudget.UNLIMITED);
        fill(queue, 499, 1);
        assertFalse(queue.isBacklogged());
        fill(queue, 1, 1);
        assertTrue(queue.isBacklogged());
    }

    @Test
    void halfOfTheByteBoundIsABacklog() {
        OutboundQueue queue = new OutboundQueue(0, 1 << 20, QueueBudget.UNLIMITED);
        fill(queue, 7, 64 * 1024);
        assertFalse(queue.isBacklogged(), "under half of 1 MiB");
        fill(queue, 1, 64 * 1024);
        assertTrue(queue.isBacklogged());
    }

    @Test
    void aSmallQueueIsNeverABacklog() {
        OutboundQueue byMessages = new OutboundQueue(10, 0, QueueBudget.UNLIMITED);
        fill(byMessages, 10, 1);
        assertFalse(byMessages.isBacklogged(), "a full queue of 10: dropping early is the operator's choice");
        OutboundQueue byBytes = new OutboundQueue(0, 10_000, QueueBudget.UNLIMITED);
        fill(byBytes, 100, 80);
        assertFalse(byBytes.isBacklogged());
    }
}
