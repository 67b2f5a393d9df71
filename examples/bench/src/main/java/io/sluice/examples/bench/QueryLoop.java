package io.sluice.examples.bench;

import io.sluice.query.client.ExchangeConsumer;
import io.sluice.query.client.Query;

import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/** Runs {@code async} queries over an exchange's whole history back to back on one thread, counting what they read. */
final class QueryLoop implements Runnable {
    private final String url;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong queries = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    private QueryLoop(String url) {
        this.url = url;
        this.thread = new Thread(this, "bench-queries");
    }

    static QueryLoop start(String url) {
        QueryLoop loop = new QueryLoop(url);
        loop.thread.start();
        return loop;
    }

    @Override
    public void run() {
        try (ExchangeConsumer consumer = ExchangeConsumer.builder().url(url).timeout(Duration.ofSeconds(30)).connect()) {
            while (running) {
                try (Query query = consumer.query("async-0-" + Long.MAX_VALUE / 2)) {
                    Iterator<byte[]> frames = query.frames();
                    while (running && frames.hasNext()) {
                        bytes.addAndGet(frames.next().length);
                    }
                }
                queries.incrementAndGet();
            }
        }
    }

    /** Stops after the query in progress and describes the load over {@code seconds}. */
    String stop(double seconds) throws InterruptedException {
        running = false;
        thread.join();
        return String.format(Locale.ROOT, "queries=%d query_MB/s=%.1f", queries.get(), bytes.get() / seconds / 1e6);
    }
}
