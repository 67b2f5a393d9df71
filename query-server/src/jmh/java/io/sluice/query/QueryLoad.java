package io.sluice.query;

import io.sluice.query.client.ExchangeConsumer;
import io.sluice.query.client.Query;
import java.time.Duration;

/**
 * A query load for whole-system runs: repeats one command against a query channel for a while and
 * prints what it read. Run it beside an MQTT load against the broker to see what a large query
 * costs live forwarding and capture (docs/benchmarks-query.md).
 *
 * <pre>
 * java -cp ... io.sluice.query.QueryLoad [url] [command] [seconds]
 *   defaults: tcp://127.0.0.1:10000 async-0-9223372036854775807 60
 * </pre>
 */
public final class QueryLoad {

    private QueryLoad() {
    }

    public static void main(String[] args) {
        String url = args.length > 0 ? args[0] : ExchangeConsumer.DEFAULT_URL;
        String command = args.length > 1 ? args[1] : "async-0-9223372036854775807";
        long seconds = args.length > 2 ? Long.parseLong(args[2]) : 60;
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        long queries = 0;
        long bytes = 0;
        long started = System.nanoTime();
        try (ExchangeConsumer consumer = ExchangeConsumer.builder().url(url).timeout(Duration.ofSeconds(60)).connect()) {
            while (System.nanoTime() < end) {
                try (Query query = consumer.query(command)) {
                    for (byte[] frame = query.nextFrame(); frame != null && System.nanoTime() < end; frame = query.nextFrame()) {
                        bytes += frame.length;
                    }
                }
                queries++;
            }
        }
        double elapsed = (System.nanoTime() - started) / 1e9;
        System.out.printf("%d queries, %.1f MB in %.1f s: %.1f MB/s%n", queries, bytes / 1e6, elapsed, bytes / 1e6 / elapsed);
    }
}
