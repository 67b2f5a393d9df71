package io.sluice.broker.sys;

import io.sluice.broker.Broker;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Publishes the broker's state under {@code $SYS/broker/} every {@code system.sys_interval}, with
 * Mosquitto's topic names so that existing dashboards work: {@code clients/connected},
 * {@code clients/disconnected}, {@code clients/total}, {@code clients/maximum},
 * {@code clients/expired}, {@code messages/received}, {@code messages/sent},
 * {@code publish/messages/received|sent|dropped}, {@code bytes/received}, {@code bytes/sent},
 * {@code subscriptions/count}, {@code retained messages/count}, {@code heap/current},
 * {@code heap/maximum}, {@code uptime} ("N seconds") and {@code version}; and, Sluice's own, every
 * {@link BrokerCounter} as {@code counters/<name>} and {@code connections/open}. Message counts
 * are PUBLISH packets.
 *
 * <p>Each value is a retained QoS 0 message routed like any other (publisher id null, as for every
 * broker-made message), published when it changed since the last round, so a new subscriber to
 * {@code $SYS/#} gets the current picture at once. More values can be contributed with
 * {@link #addSource}: the server adds the capture pipeline's counters that way.
 *
 * <p>Runs on the broker's timer thread.
 */
public final class SysTopics implements AutoCloseable {
    /** Every topic starts with this. */
    public static final String PREFIX = "$SYS/broker/";
    private static final Logger LOG = LoggerFactory.getLogger(SysTopics.class);

    private final Broker broker;
    private final String version;
    private final long intervalMillis;
    private final List<Supplier<? extends Map<String, ?>>> sources = new CopyOnWriteArrayList<>();
    private final Map<String, String> published = new HashMap<>();
    private int maximumConnected;
    private ScheduledFuture<?> task;

    /**
     * @param broker         whose state to publish
     * @param version        what {@code $SYS/broker/version} says, e.g. {@code sluice 0.1.0}
     * @param intervalMillis {@code system.sys_interval}; 0 publishes nothing until {@link #publishNow()}
     */
    public SysTopics(Broker broker, String version, long intervalMillis) {
        this.broker = broker;
        this.version = version;
        this.intervalMillis = intervalMillis;
    }

    /**
     * Adds values to every round: each key is a topic below {@code $SYS/broker/} (for example
     * {@code exchange/mq1/captured}), each value is published as its string form. Thread-safe.
     */
    public void addSource(Supplier<? extends Map<String, ?>> source) {
        sources.add(source);
    }

    /** Publishes now and then every interval; does nothing for an interval of 0. */
    public synchronized void start() {
        if (intervalMillis > 0 && task == null) {
            task = broker.timer().scheduleAtFixedRate(this::publishSafely, 0, intervalMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void publishSafely() {
        try {
            publishNow();
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again: log and keep publishing.
            LOG.error("publishing $SYS topics failed", e);
        }
    }

    /** One round: publishes every value that changed. */
    public synchronized void publishNow() {
        long now = System.currentTimeMillis();
        for (Map.Entry<String, String> entry : values(now).entrySet()) {
            String topic = PREFIX + entry.getKey();
            if (!entry.getValue().equals(published.put(topic, entry.getValue()))) {
                byte[] payload = entry.getValue().getBytes(StandardCharsets.UTF_8);
                broker.router().publish(new Message(topic, payload, 0, true, MessageProperties.NONE, null, now));
            }
        }
    }

    /** The current values by topic below {@link #PREFIX}, in publishing order. */
    public Map<String, String> values(long nowMillis) {
        BrokerMetrics metrics = broker.metrics();
        Map<String, String> values = new LinkedHashMap<>();
        values.put("version", version);
        values.put("uptime", (nowMillis - broker.startedMillis()) / 1000 + " seconds");
        putClients(values, metrics);
        putMessages(values, metrics);
        values.put("subscriptions/count", String.valueOf(broker.router().subscriptionCount()));
        values.put("retained messages/count", String.valueOf(broker.router().retained().size()));
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        values.put("heap/current", String.valueOf(heap.getUsed()));
        values.put("heap/maximum", String.valueOf(heap.getMax()));
        for (BrokerCounter counter : BrokerCounter.values()) {
            values.put("counters/" + counter.name().toLowerCase(Locale.ROOT), String.valueOf(metrics.get(counter)));
        }
        for (Supplier<? extends Map<String, ?>> source : sources) {
            source.get().forEach((key, value) -> values.put(key, String.valueOf(value)));
        }
        return values;
    }

    private void putClients(Map<String, String> values, BrokerMetrics metrics) {
        int connected = broker.connectedClients().get();
        int total = broker.sessions().size();
        maximumConnected = Math.max(maximumConnected, connected);
        values.put("clients/connected", String.valueOf(connected));
        values.put("clients/disconnected", String.valueOf(Math.max(0, total - connected)));
        values.put("clients/total", String.valueOf(total));
        values.put("clients/maximum", String.valueOf(maximumConnected));
        values.put("clients/expired", String.valueOf(metrics.get(BrokerCounter.SESSIONS_EXPIRED)));
        values.put("connections/open", String.valueOf(broker.openConnections().get()));
    }

    private static void putMessages(Map<String, String> values, BrokerMetrics metrics) {
        long received = metrics.get(BrokerCounter.MESSAGES_RECEIVED);
        long sent = metrics.get(BrokerCounter.MESSAGES_SENT);
        values.put("messages/received", String.valueOf(received));
        values.put("messages/sent", String.valueOf(sent));
        values.put("publish/messages/received", String.valueOf(received));
        values.put("publish/messages/sent", String.valueOf(sent));
        values.put("publish/messages/dropped", String.valueOf(dropped(metrics)));
        values.put("bytes/received", String.valueOf(metrics.get(BrokerCounter.BYTES_RECEIVED)));
        values.put("bytes/sent", String.valueOf(metrics.get(BrokerCounter.BYTES_SENT)));
    }

    /** Messages the broker accepted and then could not deliver, Mosquitto's publish/messages/dropped. */
    private static long dropped(BrokerMetrics metrics) {
        return metrics.get(BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL)
                + metrics.get(BrokerCounter.MESSAGES_DROPPED_OFFLINE_QOS0)
                + metrics.get(BrokerCounter.MESSAGES_DROPPED_TOO_LARGE)
                + metrics.get(BrokerCounter.MESSAGES_DROPPED_NO_SUBSCRIBER);
    }

    @Override
    public synchronized void close() {
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }
}
