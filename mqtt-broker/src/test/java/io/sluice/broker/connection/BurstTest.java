package io.sluice.broker.connection;

import io.netty.channel.EventLoop;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import io.sluice.testing.Eventually;
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
             RawClient subscriber = new RawClient(socketWithReceiveBuffer(broker))) {
            subscriber.send(RawClient.connect(5, "reader")).readUntil(RawClient.CONNACK);
            subscriber.send(RawClient.subscribe(5, 1, "burst/#", 0)).readUntil(RawClient.SUBACK);
            AtomicInteger received = new AtomicInteger();
            AtomicReference<IOException> failure = new AtomicReference<>();
            Thread reader = readPublishes(subscriber, received, failure);
            byte[] burst = burst();
            int expected = 0;
            // consecutive connections land on alternate event loops: rounds alternate shared and separate loops
            for (int round = 0; round < 6; round++) {
                try (RawClient publisher = broker.raw()) {
                    publisher.send(RawClient.connect(5, "burster-" + round)).read();
                    publisher.send(burst);
                    publisher.send(RawClient.publish(5, "burst/last", 0, 0, new byte[0], new byte[] {1}));
                    expected += BURST + 1;
                    int target = expected;
                    Eventually.await(() -> received.get() >= target || failure.get() != null
                                    || broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL) > 0,
                            () -> "round " + target / (BURST + 1) + ": " + received.get() + " of " + target);
                    assertNull(failure.get(), "the subscriber's connection failed");
                    assertEquals(0, broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL),
                            "no message of the burst dropped");
                    publisher.send(new byte[] {(byte) 0xE0, 0});
                }
            }
            assertEquals(6 * (BURST + 1), received.get(), "every message once");
            subscriber.close();
            reader.join();
        }
    }

    /**
     * The subscriber's event loop is held busy while a publisher on the other loop sends its burst,
     * so only the publisher's loop runs: it fills the subscriber's queue, and from half full on it
     * holds the publisher's reads ({@code DrainLag}) until the subscriber's loop drains.
     */
    @Test
    void aBurstWaitsForASubscriberWhoseEventLoopIsBusy() throws Exception {
        try (TestBroker broker = TestBroker.start(MqttSettings.builder().maxMqueueLen(QUEUE).build());
             RawClient subscriber = new RawClient(socketWithReceiveBuffer(broker))) {
            subscriber.send(RawClient.connect(5, "reader")).readUntil(RawClient.CONNACK);
            subscriber.send(RawClient.subscribe(5, 1, "burst/#", 0)).readUntil(RawClient.SUBACK);
            AtomicInteger received = new AtomicInteger();
            AtomicReference<IOException> failure = new AtomicReference<>();
            Thread reader = readPublishes(subscriber, received, failure);
            EventLoop subscriberLoop = loopOf(broker, "reader");
            try (RawClient publisher = connectOnAnotherLoop(broker, subscriberLoop)) {
                CountDownLatch busy = new CountDownLatch(1);
                subscriberLoop.execute(() -> {
                    busy.countDown();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300)); // the loop is busy elsewhere
                });
                assertTrue(busy.await(10, TimeUnit.SECONDS));
                publisher.send(burst());
                publisher.send(RawClient.publish(5, "burst/last", 0, 0, new byte[0], new byte[] {1}));
                Eventually.await(() -> received.get() >= BURST + 1 || failure.get() != null
                                || broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL) > 0,
                        () -> received.get() + " of " + (BURST + 1));
                assertNull(failure.get(), "the subscriber's connection failed");
                assertEquals(0, broker.broker().metrics().get(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL),
                        "no message of the burst dropped");
                assertEquals(BURST + 1, received.get());
            }
            subscriber.close();
            reader.join();
        }
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

    private static Socket socketWithReceiveBuffer(TestBroker broker) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(RECEIVE_BUFFER); // before connecting, so that the window scale allows it
        socket.connect(new InetSocketAddress(broker.host(), broker.port()));
        return socket;
    }

    /** Counts PUBLISH packets until the socket closes; a failure before that is kept for the test. */
    private static Thread readPublishes(RawClient subscriber, AtomicInteger received,
                                        AtomicReference<IOException> failure) throws IOException {
        subscriber.setTimeoutMillis(0);
        Thread reader = new Thread(() -> {
            try {
                while (true) {
                    if (subscriber.read().type() == RawClient.PUBLISH) {
                        received.incrementAndGet();
                    }
                }
            } catch (IOException e) {
                if (!subscriber.isClosed()) {
                    failure.set(e);
                }
            }
        }, "burst-subscriber");
        reader.setDaemon(true);
        reader.start();
        return reader;
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
