package io.sluice.examples.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The soak run of {@code examples/bench/soak.sh} (docs/reliability.md): drives {@link SoakTraffic}
 * against a broker it starts, kills with SIGKILL and restarts every few minutes, samples the
 * broker's RSS, heap and the traffic every {@value #SAMPLE_SECONDS} s into {@code samples.csv},
 * and at the end checks that every acknowledged QoS 1/2 message reached each persistent session
 * and was captured exactly once, and that RSS and the heap after a full GC stayed flat.
 *
 * <pre>
 * SoakDriver --sluice bin/sluice --work DIR --port 18831 --query-port 18841
 *            --minutes 30 --kill-minutes 4 --publishers 3 --rate 100
 *            --java-opts "-Xmx512m -XX:NativeMemoryTracking=summary"
 * </pre>
 * Exits 0 when every check passed, 1 otherwise.
 */
public final class SoakDriver {
    private static final int SAMPLE_SECONDS = 10;
    /** Growth allowed between the first and the last broker run before RSS or live heap counts as growing. */
    private static final double FLAT_FACTOR = 1.5;
    /** A bounded heap, and committed memory by kind sampled at the end of each broker run. */
    private static final String DEFAULT_JAVA_OPTS = "-Xmx512m -XX:NativeMemoryTracking=summary";

    private SoakDriver() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = MqttBench.options(args, 0);
        Path work = Path.of(options.getOrDefault("work", "soak-work"));
        int port = Integer.parseInt(options.getOrDefault("port", "18831"));
        int queryPort = Integer.parseInt(options.getOrDefault("query-port", "18841"));
        double minutes = Double.parseDouble(options.getOrDefault("minutes", "30"));
        double killMinutes = Double.parseDouble(options.getOrDefault("kill-minutes", "4"));
        Files.createDirectories(work);
        Path config = writeConfig(work, port, queryPort);
        SoakBroker broker = new SoakBroker(Path.of(options.getOrDefault("sluice", "bin/sluice")).toAbsolutePath(),
                config, work.resolve("broker.log"), port, options.getOrDefault("java-opts", DEFAULT_JAVA_OPTS));
        System.exit(new SoakDriver().run(broker, work, port, "tcp://127.0.0.1:" + queryPort, minutes, killMinutes,
                Integer.parseInt(options.getOrDefault("publishers", "3")),
                Integer.parseInt(options.getOrDefault("rate", "100"))) ? 0 : 1);
    }

    private static Path writeConfig(Path work, int port, int queryPort) throws IOException {
        Path config = work.resolve("sluice.conf");
        Files.writeString(config, String.format(Locale.ROOT, """
                listeners.tcp.bind = "127.0.0.1:%d"
                log.level = warn
                persistence { enabled = true, dir = "%s" }
                parquet { dir = "%s", file_count = 10000 }
                mqtt { max_mqueue_len = 200000, max_inflight_window = 1000 }
                exchange_client.soak {
                  exchange_url = "tcp://127.0.0.1:%d"
                  limit_frequency = 0
                  exchange {
                    name = soak
                    topic = "soak/#"
                    durability = wal
                    flush_interval = 5s
                    ringbus { cap = 10000, fullOp = 2 }
                  }
                }
                """, port, work.resolve("state").toAbsolutePath(), work.resolve("parquet").toAbsolutePath(), queryPort));
        return config;
    }

    private boolean run(SoakBroker broker, Path work, int port, String queryUrl, double minutes, double killMinutes,
                        int publishers, int rate) throws Exception {
        SoakLedger ledger = new SoakLedger();
        List<RunFigures> runs = new ArrayList<>();
        long started = System.nanoTime();
        long end = started + (long) (minutes * 60e9);
        long killEvery = (long) (killMinutes * 60e9);
        long nextKill = started + killEvery;
        long runMaxRss = 0;
        broker.start();
        SoakTraffic traffic = new SoakTraffic(port, queryUrl, ledger);
        traffic.start(publishers, rate);
        try (PrintWriter samples = new PrintWriter(Files.newBufferedWriter(work.resolve("samples.csv")))) {
            samples.println("seconds,incarnation,rss_kib,heap_used_kib,sent,acknowledged,refused,delivered,"
                    + "shared_delivered,churn_connects,takeovers,queries,query_failures");
            while (System.nanoTime() < end) {
                SoakTraffic.pause(TimeUnit.SECONDS.toMillis(SAMPLE_SECONDS));
                long rss = broker.rssKib();
                runMaxRss = Math.max(runMaxRss, rss);
                samples.printf(Locale.ROOT, "%.0f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d%n",
                        (System.nanoTime() - started) / 1e9, broker.incarnation(), rss, broker.heapUsedKib(),
                        ledger.sent.get(), ledger.acknowledged.get(), ledger.refused.get(), ledger.delivered.get(),
                        ledger.sharedDelivered.get(), ledger.churnConnects.get(), ledger.takeovers.get(),
                        ledger.queries.get(), ledger.queryFailures.get());
                samples.flush();
                if (System.nanoTime() >= nextKill && System.nanoTime() < end - killEvery / 4) {
                    runs.add(runFigures(broker, runMaxRss, work));
                    broker.kill();
                    long killed = System.nanoTime();
                    broker.start();
                    System.out.printf(Locale.ROOT, "%.0f s: kill -9 of broker run %d; accepting connections again after %.1f s%n",
                            (killed - started) / 1e9, broker.incarnation() - 1, (System.nanoTime() - killed) / 1e9);
                    runMaxRss = 0;
                    nextKill += killEvery;
                }
            }
        }
        traffic.stop();
        runs.add(runFigures(broker, runMaxRss, work));
        traffic.reconnectKeepers();
        boolean ok = drainAndCheck(ledger, queryUrl, work, runs, (System.nanoTime() - started) / 1e9);
        traffic.closeKeepers();
        broker.stop();
        return ok;
    }

    /**
     * A broker run's figures at its end, in KiB but for the state directory's bytes, which the next
     * run loads; the committed figures are -1 without Native Memory Tracking.
     */
    private record RunFigures(int incarnation, long maxRssKib, long liveHeapKib, long heapCommittedKib,
                              long committedKib, long stateBytes) {
    }

    private static RunFigures runFigures(SoakBroker broker, long maxRssKib, Path work) throws IOException {
        long liveHeap = broker.liveHeapKib();
        Map<String, Long> committed = broker.committedKib();
        long stateBytes;
        try (var files = Files.walk(work.resolve("state"))) {
            stateBytes = files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
        return new RunFigures(broker.incarnation(), maxRssKib, liveHeap, committed.getOrDefault("Java Heap", -1L),
                committed.getOrDefault("Total", -1L), stateBytes);
    }

    private static boolean drainAndCheck(SoakLedger ledger, String queryUrl, Path work, List<RunFigures> runs,
                                         double seconds) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline && ledger.subscribers().stream().anyMatch(s -> s.missing() > 0)) {
            SoakTraffic.pause(2_000);
        }
        Map<Long, Integer> captured = SoakTraffic.captured(queryUrl, "async-0-" + Long.MAX_VALUE / 2 + "-ts,data");
        List<Long> uncaptured = ledger.acked().stream().filter(id -> !captured.containsKey(id)).sorted().toList();
        long notCaptured = uncaptured.size();
        writeIds(work.resolve("not-captured.txt"), uncaptured);
        long capturedTwice = captured.values().stream().filter(n -> n > 1).count();
        List<String> report = new ArrayList<>();
        report.add(String.format(Locale.ROOT, "soak of %.0f s: %d broker runs (%d kill -9)", seconds, runs.size(), runs.size() - 1));
        report.add(String.format(Locale.ROOT, "published %d (acknowledged QoS 1/2: %d, not acknowledged: %d); "
                        + "shared-subscription deliveries %d; churn connects %d; takeovers %d; queries %d (failed or empty %d)",
                ledger.sent.get(), ledger.acknowledged.get(), ledger.refused.get(), ledger.sharedDelivered.get(),
                ledger.churnConnects.get(), ledger.takeovers.get(), ledger.queries.get(), ledger.queryFailures.get()));
        boolean ok = true;
        for (SoakLedger.Subscriber s : ledger.subscribers()) {
            List<Long> lost = ledger.acked().stream().filter(id -> !s.received.contains(id)).sorted().toList();
            writeIds(work.resolve("missing-" + s.name + ".txt"), lost);
            long missing = lost.size();
            ok &= missing == 0;
            report.add(String.format(Locale.ROOT, "persistent session %s: %d acknowledged messages missing, %d repeats"
                    + " (%d of QoS 2) — %s", s.name, missing, s.repeats.get(), s.qos2Repeats.get(), missing == 0 ? "PASS" : "FAIL"));
        }
        ok &= notCaptured == 0 && capturedTwice == 0;
        report.add(String.format(Locale.ROOT, "capture: %d records of %d ids; acknowledged but not captured %d;"
                        + " captured more than once %d — %s", captured.values().stream().mapToLong(Integer::longValue).sum(),
                captured.size(), notCaptured, capturedTwice, notCaptured == 0 && capturedTwice == 0 ? "PASS" : "FAIL"));
        ok &= flat(report, runs);
        report.add(ok ? "RESULT: PASS" : "RESULT: FAIL");
        Files.write(work.resolve("summary.txt"), report);
        report.forEach(System.out::println);
        return ok;
    }

    /** One line per id: publisher and sequence number, for looking into a failed check. */
    private static void writeIds(Path file, List<Long> ids) throws IOException {
        Files.write(file, ids.stream().map(id -> "publisher " + (id >>> 40) + " seq " + (id & ((1L << 40) - 1))).toList());
    }

    /** RSS and live heap of the last broker run against the first: flat when within {@link #FLAT_FACTOR}. */
    private static boolean flat(List<String> report, List<RunFigures> runs) {
        StringBuilder table = new StringBuilder("broker run | max RSS MiB | heap after full GC MiB"
                + " | heap committed MiB | all committed MiB | state MiB");
        for (RunFigures run : runs) {
            table.append(String.format(Locale.ROOT, "%n%10d | %11.0f | %22.1f | %18.0f | %17.0f | %9.1f",
                    run.incarnation(), run.maxRssKib() / 1024.0, run.liveHeapKib() / 1024.0,
                    run.heapCommittedKib() / 1024.0, run.committedKib() / 1024.0, run.stateBytes() / 1048576.0));
        }
        report.add(table.toString());
        RunFigures first = runs.get(0);
        RunFigures last = runs.get(runs.size() - 1);
        boolean rssFlat = last.maxRssKib() <= first.maxRssKib() * FLAT_FACTOR;
        boolean heapFlat = last.liveHeapKib() <= first.liveHeapKib() * FLAT_FACTOR;
        report.add("RSS " + (rssFlat ? "flat: PASS" : "grew: FAIL") + "; live heap " + (heapFlat ? "flat: PASS" : "grew: FAIL"));
        return rssFlat && heapFlat;
    }
}
