package io.sluice.server.http;

import io.sluice.exchange.Exchange;
import io.sluice.exchange.Exchanges;
import io.sluice.ringbus.RingCounter;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Each exchange's capture rates, per second, averaged over the last {@link #WINDOW} seconds:
 * messages captured (given a key), refused (the ring or batch full, closing, or the log
 * unavailable) and dropped ({@code fullOp} DROP). Sampled once a second on the given timer;
 * read by HTTP workers.
 */
public final class CaptureRates implements AutoCloseable {
    static final int WINDOW = 10;
    private static final RingCounter[] REFUSED = {RingCounter.REJECTED_RING_FULL, RingCounter.REJECTED_BATCH_FULL,
            RingCounter.REJECTED_CLOSED, RingCounter.REJECTED_UNLOGGED};

    /** One exchange's totals over the window, oldest first in a circle. */
    private static final class Window {
        final long[][] totals = new long[WINDOW + 1][3];
        final long[] at = new long[WINDOW + 1];
        int next;
        int size;
    }

    private final Exchanges exchanges;
    private final Map<String, Window> windows = new HashMap<>();
    private final ScheduledFuture<?> task;

    public CaptureRates(Exchanges exchanges, ScheduledExecutorService timer) {
        this.exchanges = exchanges;
        sample();
        this.task = timer.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
    }

    private synchronized void sample() {
        long now = System.currentTimeMillis();
        for (Exchange exchange : exchanges.all()) {
            Window w = windows.computeIfAbsent(exchange.name(), name -> new Window());
            long refused = 0;
            for (RingCounter counter : REFUSED) {
                refused += exchange.counter(counter);
            }
            long[] slot = w.totals[w.next];
            slot[0] = exchange.counter(RingCounter.RECEIVED);
            slot[1] = refused;
            slot[2] = exchange.counter(RingCounter.DROPPED);
            w.at[w.next] = now;
            w.next = (w.next + 1) % w.at.length;
            w.size = Math.min(w.at.length, w.size + 1);
        }
    }

    /** {@code captured}, {@code refused} and {@code dropped} per second for {@code exchange}; zeros before two samples. */
    public synchronized Map<String, Object> of(String exchange) {
        Map<String, Object> rates = new LinkedHashMap<>();
        Window w = windows.get(exchange);
        String[] names = {"captured", "refused", "dropped"};
        for (int i = 0; i < names.length; i++) {
            double rate = 0;
            if (w != null && w.size >= 2) {
                int newest = (w.next - 1 + w.at.length) % w.at.length;
                int oldest = (w.next - w.size + w.at.length) % w.at.length;
                double seconds = (w.at[newest] - w.at[oldest]) / 1000.0;
                rate = seconds <= 0 ? 0 : (w.totals[newest][i] - w.totals[oldest][i]) / seconds;
            }
            rates.put(names[i], Math.round(rate * 100) / 100.0);
        }
        return rates;
    }

    @Override
    public void close() {
        task.cancel(false);
    }
}
