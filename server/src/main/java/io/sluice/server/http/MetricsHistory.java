package io.sluice.server.http;

import io.sluice.broker.Broker;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The last {@link #SAMPLES} seconds of the broker's headline figures, one sample a second, so the
 * dashboard shows fifteen minutes of history as soon as it opens: connections, messages in and
 * out per second, bytes in and out per second, and deliveries dropped per second. Sampled on the
 * broker's timer thread into preallocated arrays; read by HTTP workers under the same lock.
 */
public final class MetricsHistory implements AutoCloseable {
    /** Fifteen minutes at one sample a second. */
    static final int SAMPLES = 900;
    private static final long INTERVAL_MILLIS = 1_000;
    private static final BrokerCounter[] DROPS = {BrokerCounter.MESSAGES_DROPPED_QUEUE_FULL,
            BrokerCounter.MESSAGES_DROPPED_OFFLINE_QOS0, BrokerCounter.MESSAGES_DROPPED_TOO_LARGE,
            BrokerCounter.MESSAGES_DROPPED_NO_SUBSCRIBER, BrokerCounter.MESSAGES_EXPIRED};
    /** The series, in the order of {@link #columns}. */
    private static final String[] SERIES = {"connections", "messages_in", "messages_out", "bytes_in", "bytes_out",
            "dropped"};

    private final Broker broker;
    private final long[] ts = new long[SAMPLES];
    private final double[][] columns = new double[SERIES.length][SAMPLES];
    private final long[] last = new long[SERIES.length];
    private long lastMillis;
    private int next;
    private int size;
    private final ScheduledFuture<?> task;

    public MetricsHistory(Broker broker) {
        this.broker = broker;
        sample();
        this.task = broker.timer().scheduleAtFixedRate(this::sample, INTERVAL_MILLIS, INTERVAL_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    private synchronized void sample() {
        BrokerMetrics m = broker.metrics();
        long now = System.currentTimeMillis();
        long[] totals = {broker.connectedClients().get(), m.get(BrokerCounter.MESSAGES_RECEIVED),
                m.get(BrokerCounter.MESSAGES_SENT), m.get(BrokerCounter.BYTES_RECEIVED), m.get(BrokerCounter.BYTES_SENT),
                dropped(m)};
        double seconds = lastMillis == 0 ? 0 : (now - lastMillis) / 1000.0;
        ts[next] = now;
        columns[0][next] = totals[0];
        for (int i = 1; i < SERIES.length; i++) {
            columns[i][next] = seconds <= 0 ? 0 : Math.max(0, totals[i] - last[i]) / seconds;
        }
        System.arraycopy(totals, 0, last, 0, totals.length);
        lastMillis = now;
        next = (next + 1) % SAMPLES;
        size = Math.min(SAMPLES, size + 1);
    }

    private static long dropped(BrokerMetrics m) {
        long sum = 0;
        for (BrokerCounter counter : DROPS) {
            sum += m.get(counter);
        }
        return sum;
    }

    /** The samples newer than {@code sinceMillis}, oldest first: {@code ts} and one array per series. */
    public synchronized Map<String, Object> since(long sinceMillis) {
        List<Long> times = new ArrayList<>();
        List<List<Double>> values = new ArrayList<>();
        for (int s = 0; s < SERIES.length; s++) {
            values.add(new ArrayList<>());
        }
        for (int k = 0; k < size; k++) {
            int i = (next - size + k + SAMPLES) % SAMPLES;
            if (ts[i] <= sinceMillis) {
                continue;
            }
            times.add(ts[i]);
            for (int s = 0; s < SERIES.length; s++) {
                values.get(s).add(Math.round(columns[s][i] * 100) / 100.0);
            }
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("interval_ms", INTERVAL_MILLIS);
        answer.put("ts", times);
        for (int s = 0; s < SERIES.length; s++) {
            answer.put(SERIES[s], values.get(s));
        }
        return answer;
    }

    @Override
    public void close() {
        task.cancel(false);
    }
}
