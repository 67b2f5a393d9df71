package io.sluice.broker.session;

import io.sluice.broker.Broker;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.message.Delivery;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When an offer tells the publishing thread to hold its client ({@link DrainLag}), and when not. */
class DrainLagTest {
    private static final int QUEUE = 256;

    private static Broker broker() {
        return Broker.open(MqttSettings.builder().maxMqueueLen(QUEUE).build());
    }

    private static Session online(Broker broker, boolean keepsUp) throws SessionLimitReached {
        return broker.sessions().attach("sub", false, 3600, new IdleLink(null, keepsUp)).session();
    }

    /** Offers one QoS 0 message; whether it was taken, and whether it raised the lag. */
    private static boolean[] offer(Session session) {
        DrainLag lag = DrainLag.lowered();
        Message message = new Message("t", new byte[1], 0, false, MessageProperties.NONE, "p", System.currentTimeMillis());
        boolean taken = session.offer(Delivery.of(message, 0, false));
        return new boolean[] {taken, lag.raised()};
    }

    private static void offerWithoutLag(Session session, int messages) {
        for (int i = 0; i < messages; i++) {
            boolean[] result = offer(session);
            assertTrue(result[0], "message " + i + " taken");
            assertFalse(result[1], "message " + i + " raises no lag");
        }
    }

    @Test
    void fromHalfFullAnOfferToASessionThatKeepsUpRaisesTheLag() throws Exception {
        try (Broker broker = broker()) {
            Session session = online(broker, true);
            offerWithoutLag(session, QUEUE / 2 - 1);
            assertTrue(offer(session)[1], "the offer that makes the queue half full raises it");
        }
    }

    @Test
    void aSessionThatDoesNotKeepUpNeverRaisesTheLag() throws Exception {
        try (Broker broker = broker()) {
            offerWithoutLag(online(broker, false), QUEUE);
        }
    }

    @Test
    void aSessionWhoseFullQueueDroppedLatelyRaisesNoLag() throws Exception {
        try (Broker broker = broker()) {
            Session session = online(broker, true);
            for (int i = 0; i < QUEUE; i++) {
                offer(session);
            }
            assertFalse(offer(session)[0], "the full queue drops");
            session.drain(new Outbox(), QUEUE, 1, System.currentTimeMillis(), System.nanoTime()); // room for one
            boolean[] next = offer(session);
            assertTrue(next[0], "taken again");
            assertFalse(next[1], "a reader slower than it is fed is not waited for");
        }
    }
}
