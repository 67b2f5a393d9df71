package io.sluice.examples.bench;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.query.client.ExchangeConsumer;
import io.sluice.query.client.Query;
import io.sluice.query.client.Record;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The soak's clients, each kind on its own thread while {@link #running}: paced publishers of
 * mixed QoS, persistent-session subscribers (one of which goes offline now and then), connection
 * churn, two connections taking one client id from each other, members of a shared subscription
 * that come and go, and queries of the exchange that captures the traffic.
 */
final class SoakTraffic {
    static final String TOPICS = "soak/+/+";
    private static final int PAYLOAD_BYTES = 64;

    private final String host = "127.0.0.1";
    private final int port;
    private final String queryUrl;
    private final SoakLedger ledger;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Mqtt5AsyncClient> keepers = new ArrayList<>();
    volatile boolean running = true;

    SoakTraffic(int port, String queryUrl, SoakLedger ledger) {
        this.port = port;
        this.queryUrl = queryUrl;
        this.ledger = ledger;
    }

    /** Starts everything: {@code publishers} publishers of {@code rate} messages/s each. */
    void start(int publishers, int rate) {
        keepers.add(keeper("keeper-1"));
        Mqtt5AsyncClient flapping = keeper("keeper-2");
        keepers.add(flapping);
        spawn("offline-keeper", () -> goOfflineNowAndThen(flapping));
        for (int i = 0; i < publishers; i++) {
            int publisher = i;
            AtomicLong sequence = new AtomicLong();
            spawn("publisher-" + i, () -> publish(publisher, rate, sequence));
        }
        spawn("churn", this::churn);
        spawn("takeover", this::takeOverBackAndForth);
        spawn("shared", this::sharedMembersComeAndGo);
        spawn("queries", this::queryNowAndThen);
    }

    /** Stops the threads (not the persistent subscribers, which go on draining their sessions). */
    void stop() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.interrupt(); // out of its pauses: the offline subscriber must not leave during the drain
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    /** Disconnects the persistent subscribers. */
    void closeKeepers() {
        for (Mqtt5AsyncClient keeper : keepers) {
            keeper.disconnect();
        }
    }

    private void spawn(String name, Runnable body) {
        Thread thread = new Thread(() -> {
            while (running) {
                try {
                    body.run();
                } catch (RuntimeException e) {
                    if (!running) {
                        return; // interrupted by stop()
                    }
                    pause(500); // the broker is being restarted, or a client lost a race; carry on
                }
            }
        }, "soak-" + name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    private Mqtt5AsyncClient keeper(String id) {
        SoakLedger.Subscriber record = ledger.subscriber(id);
        Mqtt5AsyncClient client = MqttClient.builder().useMqttVersion5().identifier(id).serverHost(host).serverPort(port)
                .automaticReconnect().initialDelay(200, TimeUnit.MILLISECONDS).maxDelay(2, TimeUnit.SECONDS)
                .applyAutomaticReconnect()
                .buildAsync();
        client.publishes(MqttGlobalPublishFilter.ALL, p -> record.received(id(p), p.getQos().getCode()));
        client.connectWith().cleanStart(false).sessionExpiryInterval(3600).send().join();
        client.subscribeWith().topicFilter(TOPICS).qos(MqttQos.EXACTLY_ONCE).send().join();
        return client;
    }

    private void goOfflineNowAndThen(Mqtt5AsyncClient client) {
        pause(90_000);
        if (client.getState().isConnected()) {
            client.disconnect().join();
        }
        pause(15_000);
        connect(client, false);
    }

    private void publish(int publisher, int rate, AtomicLong sequence) {
        Mqtt5AsyncClient client = MqttClient.builder().useMqttVersion5().identifier("publisher-" + publisher)
                .serverHost(host).serverPort(port)
                .automaticReconnect().initialDelay(200, TimeUnit.MILLISECONDS).maxDelay(2, TimeUnit.SECONDS)
                .applyAutomaticReconnect()
                .buildAsync();
        connect(client, true);
        Semaphore inflight = new Semaphore(1000);
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) / rate;
        long next = System.nanoTime();
        while (running) {
            next += intervalNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                pause(TimeUnit.NANOSECONDS.toMillis(wait));
            }
            long seq = sequence.getAndIncrement();
            int qos = (int) (seq % 3);
            long id = SoakLedger.id(publisher, seq);
            inflight.acquireUninterruptibly();
            ledger.sent.incrementAndGet();
            client.publishWith().topic("soak/p" + publisher + "/q" + qos).qos(MqttQos.fromCode(qos))
                    .payload(payload(id)).send()
                    .whenComplete((result, error) -> {
                        inflight.release();
                        if (error == null && result.getError().isEmpty()) {
                            if (qos > 0) {
                                ledger.acknowledged(id, qos);
                            }
                        } else if (qos > 0) {
                            ledger.refused.incrementAndGet();
                        }
                    });
        }
        client.disconnect();
    }

    /** Connects, trying again while the broker restarts; with automatic reconnect it then stays connected. */
    private void connect(Mqtt5AsyncClient client, boolean cleanStart) {
        connect(client, cleanStart, () -> running);
    }

    private static void connect(Mqtt5AsyncClient client, boolean cleanStart, BooleanSupplier keepTrying) {
        while (keepTrying.getAsBoolean() && !client.getState().isConnectedOrReconnect()) {
            try {
                client.connectWith().cleanStart(cleanStart).sessionExpiryInterval(cleanStart ? 0 : 3600).send().join();
            } catch (RuntimeException e) {
                pause(500);
            }
        }
    }

    /** Makes sure the persistent subscribers are connected (for up to a minute), to drain their sessions at the end. */
    void reconnectKeepers() {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        keepers.forEach(keeper -> connect(keeper, false, () -> System.nanoTime() < deadline));
    }

    private void churn() {
        Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5()
                .identifier("churn-" + ThreadLocalRandom.current().nextInt(1_000_000))
                .serverHost(host).serverPort(port).buildBlocking();
        client.connectWith().cleanStart(true).send();
        ledger.churnConnects.incrementAndGet();
        client.subscribeWith().topicFilter("soak/p0/q0").send();
        client.disconnect();
        pause(100);
    }

    private void takeOverBackAndForth() {
        List<Mqtt5BlockingClient> twins = List.of(twin(), twin());
        for (int i = 0; running; i++) {
            Mqtt5BlockingClient next = twins.get(i % 2);
            try {
                next.connectWith().cleanStart(false).sessionExpiryInterval(60).send();
                ledger.takeovers.incrementAndGet();
            } catch (RuntimeException stillConnectedOrRestarting) {
                // the broker's DISCONNECT 0x8E has not reached this twin yet, or the broker is down
            }
            pause(500);
        }
    }

    private Mqtt5BlockingClient twin() {
        return MqttClient.builder().useMqttVersion5().identifier("flapper").serverHost(host).serverPort(port).buildBlocking();
    }

    private void sharedMembersComeAndGo() {
        ArrayDeque<Mqtt5AsyncClient> members = new ArrayDeque<>();
        try {
            while (running) {
                Mqtt5AsyncClient member = MqttClient.builder().useMqttVersion5()
                        .identifier("member-" + ThreadLocalRandom.current().nextInt(1_000_000))
                        .serverHost(host).serverPort(port).buildAsync();
                member.connectWith().cleanStart(true).send().join();
                member.subscribeWith().topicFilter("$share/soakers/" + TOPICS).qos(MqttQos.AT_LEAST_ONCE)
                        .callback(p -> ledger.sharedDelivered.incrementAndGet()).send().join();
                members.add(member);
                if (members.size() > 3) {
                    members.poll().disconnect();
                }
                pause(2_000);
            }
        } finally {
            members.forEach(Mqtt5AsyncClient::disconnect);
        }
    }

    private void queryNowAndThen() {
        pause(30_000);
        long now = System.currentTimeMillis();
        try {
            long records = captured(queryUrl, "async-" + (now - 60_000) + "-" + now + "-ts,data").values().stream()
                    .mapToLong(Integer::longValue).sum();
            ledger.queries.incrementAndGet();
            if (records == 0) {
                ledger.queryFailures.incrementAndGet();
            }
        } catch (RuntimeException e) {
            ledger.queryFailures.incrementAndGet();
        }
    }

    /** How many times each soak id was captured, by a query of the exchange. */
    static Map<Long, Integer> captured(String url, String command) {
        Map<Long, Integer> counts = new HashMap<>();
        try (ExchangeConsumer consumer = ExchangeConsumer.builder().url(url).timeout(Duration.ofSeconds(30)).connect();
             Query query = consumer.query(command)) {
            for (Record record : query.records()) {
                byte[] data = record.data();
                if (data != null && data.length >= Long.BYTES) {
                    counts.merge(ByteBuffer.wrap(data).getLong(), 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    private static byte[] payload(long id) {
        return ByteBuffer.allocate(PAYLOAD_BYTES).putLong(id).array();
    }

    private static long id(Mqtt5Publish publish) {
        return ByteBuffer.wrap(publish.getPayloadAsBytes()).getLong();
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
