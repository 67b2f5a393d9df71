package io.sluice.broker.session;

import io.sluice.broker.Broker;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.message.Delivery;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.metrics.BrokerCounter;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionRegistryTest {
    private static final SessionLink NO_LINK = new SessionLink() {
        @Override
        public void requestDrain() {
        }

        @Override
        public void takenOver() {
        }

        @Override
        public void kick() {
        }

        @Override
        public ClientInfo info() {
            return null;
        }
    };

    @Test
    void expiredMessagesLeaveAnOfflineQueueWithoutWaitingForTheClient() throws SessionLimitReached {
        try (Broker broker = Broker.open(MqttSettings.defaults())) {
            SessionRegistry registry = broker.sessions();
            Session session = registry.attach("offline", false, 3600, NO_LINK).session();
            registry.detach(session, NO_LINK, null);
            long now = System.currentTimeMillis();
            MessageProperties oneSecond = new MessageProperties(-1, 1, null, null, null, List.of());
            session.offer(Delivery.of(new Message("t", new byte[1], 1, false, oneSecond, "p", now - 5_000), 1, false));
            session.offer(Delivery.of(new Message("t", new byte[1], 1, false, MessageProperties.NONE, "p", now), 1,
                    false));

            registry.purgeExpired();

            assertEquals(1, session.queuedMessages());
            assertEquals(1, broker.metrics().get(BrokerCounter.MESSAGES_EXPIRED));
        }
    }

    @Test
    void reattachingKeepsTheSessionAndCleanStartReplacesIt() throws SessionLimitReached {
        try (Broker broker = Broker.open(MqttSettings.defaults())) {
            SessionRegistry registry = broker.sessions();
            SessionRegistry.Attachment first = registry.attach("c", false, 3600, NO_LINK);
            assertFalse(first.sessionPresent());
            registry.detach(first.session(), NO_LINK, null);

            SessionRegistry.Attachment resumed = registry.attach("c", false, 3600, NO_LINK);
            assertTrue(resumed.sessionPresent());
            assertSame(first.session(), resumed.session());

            SessionRegistry.Attachment fresh = registry.attach("c", true, 3600, NO_LINK);
            assertFalse(fresh.sessionPresent());
            assertFalse(fresh.session() == first.session());
            assertEquals(1, registry.size());
        }
    }
}
