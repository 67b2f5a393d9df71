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
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionRegistryTest {
    private static final IdleLink NO_LINK = IdleLink.from(null);
    private static final IdleLink FROM_1 = IdleLink.from("192.0.2.1");
    private static final IdleLink FROM_2 = IdleLink.from("192.0.2.2");

    @Test
    void expiredMessagesLeaveAnOfflineQueueWithoutWaitingForTheClient() throws SessionLimitReached {
        try (Broker broker = Broker.open(MqttSettings.defaults())) {
            SessionRegistry registry = broker.sessions();
            Session session = leaveOffline(registry, "offline", NO_LINK);
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

    @Test
    void maxSessionsPerAddressCountsEachSessionWhereItLastConnectedFrom() throws SessionLimitReached {
        try (Broker broker = Broker.open(MqttSettings.builder().maxSessionsPerAddress(2).build())) {
            SessionRegistry registry = broker.sessions();
            Session x = registry.attach("x", false, 3600, FROM_1).session();
            registry.attach("y", false, 3600, FROM_1);
            assertThrows(SessionLimitReached.class, () -> registry.attach("z", false, 3600, FROM_1),
                    "both sessions of 192.0.2.1 are online");
            registry.attach("z", false, 3600, FROM_2);

            registry.detach(x, FROM_1, null);
            registry.attach("x", false, 3600, FROM_2); // x moves to 192.0.2.2, which now holds two
            registry.attach("w", false, 3600, FROM_1);
            assertThrows(SessionLimitReached.class, () -> registry.attach("v", false, 3600, FROM_2));
            assertEquals(4, registry.size());
            assertEquals(0, broker.metrics().get(BrokerCounter.SESSIONS_EVICTED));
        }
    }

    @Test
    void aNewSessionBeyondItsAddressesLimitEndsThatAddressesSessionOfflineLongest() throws SessionLimitReached {
        try (Broker broker = Broker.open(MqttSettings.builder().maxSessionsPerAddress(2).build())) {
            SessionRegistry registry = broker.sessions();
            Session elsewhere = leaveOffline(registry, "elsewhere", FROM_2); // offline longest, at another address
            leaveOffline(registry, "a", FROM_1);
            Session b = leaveOffline(registry, "b", FROM_1);

            registry.attach("c", false, 3600, FROM_1);

            assertNull(registry.get("a"), "a, offline longest at 192.0.2.1, made room for c");
            assertSame(b, registry.get("b"));
            assertSame(elsewhere, registry.get("elsewhere"));
            assertEquals(1, broker.metrics().get(BrokerCounter.SESSIONS_EVICTED));
            registry.attach("from-unknown-address", false, 3600, NO_LINK); // counts for no address
            assertEquals(4, registry.size());
        }
    }

    /** Attaches {@code clientId} from {@code link} with a session expiry of an hour, and detaches it. */
    private static Session leaveOffline(SessionRegistry registry, String clientId, IdleLink link) throws SessionLimitReached {
        Session session = registry.attach(clientId, false, 3600, link).session();
        registry.detach(session, link, null);
        return session;
    }
}
