package io.sluice.broker.connection;

import io.netty.channel.EventLoop;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import io.sluice.testing.Eventually;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A burst of QoS 0 messages written in one go, smaller than the subscriber's socket buffers plus
 * {@code max_mqueue_len} messages, reaches a subscriber that keeps up, whole, whether the
 * publisher's connection shares the subscriber's event loop or not.
 *
 * <p>The subscriber sets its receive buffer before connecting, so that "its socket buffers" do
 * not depend on the kernel's defaults, and reads on a thread of its own: on a loaded 2-core CI
 * machine a client library's callbacks can stall long enough for a default-sized buffer to fill.
 */
class BurstTest {
    private static final int QUEUE = 1_000;
    private static final int BURST = 2_000;
    /** Holds more than the burst alone: the bound under test is the broker's, not the kernel's. */
    private static final int RECEIVE_BUFFER = 1 << 20;

    @Test
    void aBurstInOneTcpWriteIsNeverDroppedForASubscriberThatKeepsUp() throws Exception {
        try (TestBroker broker = TestBroker.start(MqttSettings.builder().maxMqueueLen(QUEUE).build());
             BurstReader reader = new BurstReader(broker)) {
            byte[] burst = burst();
            // consecutive connections land on alternate event loops: rounds alternate shared and separate loops
            for (int round = 1; round <= 6; round++) {
                try (RawClient publisher = broker.raw()) {
                    publisher.send(RawClient.connect(5, "burster-" + round)).read();
                    sendBurst(publisher, burst);
                    reader.awaitWhole(round * (BURST + 1), "round " + round);
                    publisher.send(new byte[] {(byte) 0xE0, 0});
                }
            }
            assertEquals(6 * (BURST + 1), reader.received.get(), "every message once");
        }
    }

    /**
     * The subscriber's event loop is held busy while a publisher on the other loop sends its burst,
     * so only the publisher's loop runs: it fills the subscriber's queue, and from half full on it
     * holds the publisher's reads ({@code DrainLag}) until the subscriber's loop drains. Once that
     * loop runs, its first drain fills the write buffer faster than the kernel takes it from a new
     * connection, and the hold must go on through that too.
     */
    @RepeatedTest(10) // with no grace for a full write buffer, 5 to 8 in 40 dropped part of the burst
    void aBurstWaitsForASubscriberWhoseEventLoopIsBusy() throws Exception {
        try (TestBroker broker = TestBroker.start(MqttSettings.builder().maxMqueueLen(QUEUE).build());
             BurstReader reader = new BurstReader(broker)) {
            EventLoop subscriberLoop = loopOf(broker, "reader");
            try (RawClient publisher = connectOnAnotherLoop(broker, subscriberLoop)) {
                CountDownLatch busy = new CountDownLatch(1);
                subscriberLoop.execute(() -> {
                    busy.countDown();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300)); // the loop is busy elsewhere
                });
                assertTrue(busy.await(10, TimeUnit.SECONDS));
                sendBurst(publisher, burst());
                reader.awaitWhole(BURST + 1, "the burst");
                assertEquals(BURST + 1, reader.received.get());
            }
        }
    }

    /** The burst in one write, then one more message. */
    private static void sendBurst(RawClient publisher, byte[] burst) throws IOException {
        publisher.send(burst);
        publisher.send(RawClient.publish(5, "burst/last", 0, 0, new byte[0], new byte[] {1}));
    }

    private static EventLoop loopOf(TestBroker broker, String clientId) {
        return ((Connection) broker.broker().sessions().get(clientId).link()).ctx.channel().eventLoop();
    }

    /** A connected publisher whose connection is on another event loop than {@code avoid}; connections alternate loops. */
    private static RawClient connectOnAnotherLoop(TestBroker broker, EventLoop avoid) throws IOException {
        for (int i = 0; ; i++) {
            RawClient publisher = broker.raw();
            publisher.send(RawClient.connect(5, "burster-" + i)).readUntil(RawClient.CONNACK);
            if (loopOf(broker, "burster-" + i) != avoid) {
                return publisher;
            }
            publisher.close();
            assertTrue(i < 4, "connections keep landing on the subscriber's loop");
        }
    }

    /**
     * The subscriber of {@code burst/#}: a raw socket whose receive buffer is set before connecting,
     * read on a thread of its own that counts PUBLISH packets until the socket closes.
     */
    private static final class BurstReader implements AutoCloseable {
        final AtomicInteger received = new AtomicInteger();
        private final AtomicReference<IOException> failure = new AtomicReference<>();
        private final TestBroker broker;
        private final RawClient client;
        private final Thread thread;

        BurstReader(TestBroker broker) throws IOException {
            this.broker = broker;
            Socket socket = new Socket();
            socket.setReceiveBufferSize(RECEIVE_BUFFER); // before connecting, so that the window scale allows it
            socket.connect(new InetSocketAddress(broker.host(), broker.port()));
            this.client = new RawClient(socket);
            client.send(RawClient.connect(5, "reader")).readUntil(RawClient.CONNACK);
            client.send(RawClient.subscribe(5, 1, "burst/#", 0)).readUntil(RawClient.SUBACK);
            client.setTimeoutMillis(0);
            this.thread = new Thread(this::count, "burst-subscriber");
            thread.setDaemon(true);
            thread.start();
        }

        private void count() {
            try {
                while (true) {
                    if (client.read().type() == RawClient.PUBLISH) {
                        received.incrementAndGet();
                    }
                }
            } catch (IOException e) {
                if (!client.isClosed()) {
                    failure.set(e);
                }
            }
        }

        /** Waits for {@code total} messages in all, failing at once if the broker dropped one or the socket failed. */
        void awaitWhole(int total, String what) {
            Eventually.await(() -> received.get() >= total || failure.get() != null || dropped() > 0,
                    () -> what + ": " + received.get() + " of " + total);
            assertNull(failure.get(), "the subscriber's connection failed");
            assertEquals(0, dropped(), "no message of the burst dropped");
        }

        private long dropped() {
            return broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL);
        }

        @Override
        public void close() throws Exception {
            client.close();
            thread.join();
        }
    }

    /** {@value #BURST} QoS 0 PUBLISH packets of 100-byte payloads, in one byte array for one write. */
    private static byte[] burst() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] payload = new byte[100];
        for (int i = 0; i < BURST; i++) {
            out.writeBytes(RawClient.publish(5, "burst/" + (i % 10), 0, 0, new byte[0], payload));
        }
        return out.toByteArray();
    }
}
