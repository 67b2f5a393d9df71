package io.sluice.exchange;

import io.sluice.parquet.ParquetSettings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testing.Eventually;
import io.sluice.parquet.StoreCounter;
import io.sluice.ringbus.FullOp;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.RingSettings;
import io.sluice.ringbus.SpillFile;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.Log;
import io.sluice.storage.LogCursor;
import io.sluice.stream.PluginRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Exchanges with {@code durability = wal} on real files. A crash is simulated by copying the
 * directory while the exchange runs, with the writer held by the gated plugin so no file is
 * published or trimmed during the copy: the copy holds exactly what a {@code kill -9} at that
 * instant leaves (a process crash keeps the page cache), and opening it is the restart.
 */
class WriteAheadLogTest {

    @TempDir
    Path dir;

    @TempDir
    Path crash;

    private final GatedPlugin plugin = new GatedPlugin();

    private static ExchangeSettings settings(Path dir, int cap) {
        RingSettings ring = RingSettings.defaults().withCap(cap).withFlushInterval(Duration.ofHours(1));
        return ExchangeSettings.defaults("ex", "t/#", dir.toString()).withStreamType(GatedPlugin.ID).withRing(ring)
                .withParquet(ParquetSettings.defaults(dir.toString()).withFileRollInterval(Duration.ofMillis(100)).withRetention(Duration.ZERO))
                .withDurability(Durability.WAL);
    }

    private static Exchange open(ExchangeSettings settings, GatedPlugin plugin) throws IOException {
        PluginRegistry plugins = PluginRegistry.withBuiltIns();
        plugins.register(plugin, "test");
        return Exchange.open(settings, plugins);
    }

    private static void offer(Exchange exchange, long from, long to) {
        for (long i = from; i < to; i++) {
            assertTrue(exchange.offer(Captured.topic(i), Captured.payload(i)));
        }
    }

    /** Offers messages [from, to) with receipts and waits until every receipt ran. */
    private static void offerDurably(Exchange exchange, long from, long to) throws InterruptedException {
        CountDownLatch durable = new CountDownLatch((int) (to - from));
        for (long i = from; i < to; i++) {
            assertTrue(exchange.offer(Captured.topic(i), Captured.payload(i), System.currentTimeMillis(), durable::countDown));
        }
        assertTrue(durable.await(20, TimeUnit.SECONDS), durable.getCount() + " receipts did not run");
    }

    /** Lets the writer go, so closing can write everything, and closes. */
    private static void closeReleased(Exchange exchange, GatedPlugin plugin) throws IOException {
        plugin.open();
        exchange.close();
    }

    /** A failed test must not leave a writer held forever. */
    @AfterEach
    void releaseWriter() {
        plugin.open();
    }

    /** Offers messages 0..9 and waits until the writer is held encoding their batch. */
    private void holdWriterOnFirstBatch(Exchange exchange) throws InterruptedException {
        offer(exchange, 0, 10);
        assertTrue(plugin.writerWaiting.await(20, TimeUnit.SECONDS));
    }

    /**
     * Lets the first batch (0..9) through alone and waits until its file is published (100 ms
     * after its row group was written) and the log trimmed behind it; later batches wait at the
     * writer's gate.
     */
    private void publishFirstFile(Exchange exchange) {
        plugin.allow(1);
        offer(exchange, 0, 10);
        Eventually.await(() -> exchange.counter(StoreCounter.FILES_WRITTEN) == 1, () -> "first file");
        Eventually.await(() -> exchange.writeAheadLog().startOffset() == 10, () -> "trimmed to " + exchange.writeAheadLog().startOffset());
    }

    /**
     * A copy of {@code from}'s files as a crash at this instant leaves them. A file that vanishes
     * while copying (a checkpoint's temporary file renamed, a trimmed segment) is gone in a crash too.
     */
    static void crashImage(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes) throws IOException {
                Files.createDirectories(to.resolve(from.relativize(directory).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                try {
                    Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.REPLACE_EXISTING);
                } catch (NoSuchFileException e) {
                    // vanished meanwhile
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
    }

    private static Path walDir(Path dir) {
        return dir.resolve(".wal").resolve("ex");
    }

    private static List<Path> segments(Path walDir) {
        try (Stream<Path> files = Files.list(walDir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("listing " + walDir, e);
        }
    }

    /** Opens the log of a stopped or copied exchange on its own, as an independent reader. */
    private static Log openLog(Path walDir) {
        return Log.open(walDir, "check", ExchangeSettings.WAL_DEFAULTS);
    }

    /** Every payload the log holds, by offset. */
    private static List<String> payloads(Log log) {
        List<String> payloads = new ArrayList<>();
        try (LogCursor cursor = log.cursor(log.logStartOffset())) {
            while (cursor.next()) {
                payloads.add(cursor.offset() + "=" + new String(cursor.value(), StandardCharsets.UTF_8));
            }
        }
        return payloads;
    }

    @Test
    void theLogsOffsetsAreTheCaptureOffsetsAndContinueAcrossRestarts() throws Exception {
        plugin.open();
        try (Exchange exchange = open(settings(dir, 100), plugin)) {
            offer(exchange, 0, 150);
        }
        try (Exchange exchange = open(settings(dir, 100), plugin)) {
            assertEquals(0, exchange.counter(ExchangeCounter.WAL_RECORDS_REPLAYED), "a clean close leaves nothing to replay");
            offer(exchange, 150, 200);
        }
        List<Captured.Row> rows = Captured.duckDb(dir);
        Captured.assertMessages(rows, Captured.range(0, 200));
        assertEquals(Captured.range(0, 200), rows.stream().map(Captured.Row::offset).toList());
        try (Log log = openLog(walDir(dir))) {
            assertEquals(200, log.nextOffset(), "the log assigned every offset");
        }
    }

    @Test
    void anExchangeWithFilesButNoLogContinuesItsOffsetsInANewLog() throws Exception {
        plugin.open();
        try (Exchange exchange = open(settings(dir, 100).withDurability(Durability.NONE), plugin)) {
            offer(exchange, 0, 100);
        }
        assertFalse(Files.exists(walDir(dir)));
        try (Exchange exchange = open(settings(dir, 100), plugin)) {
            assertEquals(100, exchange.writeAheadLog().startOffset());
            offer(exchange, 100, 150);
        }
        try (Exchange exchange = open(settings(dir, 100).withDurability(Durability.NONE), plugin)) {
            offer(exchange, 150, 180);
        }
        try (Exchange exchange = open(settings(dir, 100), plugin)) {
            assertEquals(180, exchange.writeAheadLog().startOffset(), "a log left behind by the files starts after them");
            offer(exchange, 180, 200);
        }
        List<Captured.Row> rows = Captured.duckDb(dir);
        Captured.assertMessages(rows, Captured.range(0, 200));
        assertEquals(Captured.range(0, 200), rows.stream().map(Captured.Row::offset).toList());
    }

    @Test
    void recordsNotInParquetAtACrashAreServedFromTheLogAndWrittenOnceAtTheNextOpen() throws Exception {
        Exchange exchange = open(settings(dir, 10), plugin);
        publishFirstFile(exchange);
        offerDurably(exchange, 10, 35);
        crashImage(dir, crash);
        plugin.open();
        exchange.close();

        // A torn write at the end of the crashed log: recovery cuts it, nothing acknowledged is lost.
        Path active = segments(walDir(crash)).get(segments(walDir(crash)).size() - 1);
        try (RandomAccessFile file = new RandomAccessFile(active.toFile(), "rw")) {
            file.seek(file.length());
            file.write(new byte[] {0, 0, 0, 40, 1, 2, 3, 4, 5});
        }

        GatedPlugin held = new GatedPlugin();
        Exchange restarted = open(settings(crash, 10), held);
        try {
            assertEquals(25, restarted.counter(ExchangeCounter.WAL_RECORDS_REPLAYED));
            assertEquals(3, restarted.counter(ExchangeCounter.WAL_BATCHES_REPLAYED));
            Captured.assertMessages(Captured.query(restarted, 0, Long.MAX_VALUE), Captured.range(0, 35));
            assertEquals(0, restarted.counter(StoreCounter.FILES_WRITTEN), "the writer is held: records 10..34 came from the log");
            offer(restarted, 35, 40);
            Eventually.await(() -> restarted.counter(RingCounter.RECEIVED) == 5, () -> "taken by the ring");
            Captured.assertMessages(Captured.query(restarted, 0, Long.MAX_VALUE), Captured.range(0, 40));
        } finally {
            closeReleased(restarted, held);
        }

        List<Captured.Row> rows = Captured.duckDb(crash);
        Captured.assertMessages(rows, Captured.range(0, 40));
        assertEquals(Captured.range(0, 40), rows.stream().map(Captured.Row::offset).toList(), "exactly once, offsets from the log");
        try (Exchange again = open(settings(crash, 10), held)) {
            assertEquals(0, again.counter(ExchangeCounter.WAL_RECORDS_REPLAYED), "written records are never replayed twice");
        }
    }

    @Test
    void theLogIsTrimmedBehindPublishedFilesAndNeverPastWhatIsOnlyInTheLog() throws Exception {
        ExchangeSettings settings = settings(dir, 10).withWal(ExchangeSettings.WAL_DEFAULTS.toBuilder().segmentBytes(1024).build());
        Exchange exchange = open(settings, plugin);
        publishFirstFile(exchange);
        offer(exchange, 10, 50);
        // Durable, so on disk: nextOffset() also counts records the ring has not written yet, which a crash image would miss.
        Eventually.await(() -> exchange.writeAheadLog().highWatermark() == 50, () -> "logged durably up to " + exchange.writeAheadLog().highWatermark());
        assertEquals(10, exchange.writeAheadLog().startOffset(), "the log keeps what is not in a published file");
        crashImage(dir, crash);

        plugin.open();
        Eventually.await(() -> exchange.counter(StoreCounter.RECORDS_WRITTEN) == 50, () -> "records written");
        offer(exchange, 50, 100);
        Eventually.await(() -> exchange.counter(StoreCounter.RECORDS_WRITTEN) == 100, () -> "records written");
        Eventually.await(() -> exchange.writeAheadLog().startOffset() == 100, () -> "trimmed to " + exchange.writeAheadLog().startOffset());
        // The new start is made durable first, then the segments below it are deleted.
        Eventually.await(() -> segments(walDir(dir)).size() == 1,
                () -> "every segment below the start is deleted, the active one stays: " + segments(walDir(dir)));
        exchange.close();

        GatedPlugin held = new GatedPlugin();
        Exchange restarted = open(settings(crash, 10), held);
        try {
            assertEquals(40, restarted.counter(ExchangeCounter.WAL_RECORDS_REPLAYED), "the log kept what was only there");
        } finally {
            closeReleased(restarted, held);
        }
        Captured.assertMessages(Captured.duckDb(crash), Captured.range(0, 50));
    }

    /** Under {@code always} a batch left in the log also stays in memory until its fsync: both paths are read. */
    @ParameterizedTest(name = "flush = {0}")
    @EnumSource(FlushPolicy.class)
    void fullOpFileLeavesFullBatchesInTheLogAndWritesThemLaterInOrder(FlushPolicy flush) throws Exception {
        RingSettings ring = RingSettings.defaults().withCap(10).withFlushInterval(Duration.ofHours(1)).withFullOp(FullOp.FILE);
        ExchangeSettings settings = settings(dir, 10).withRing(ring)
                .withParquet(settings(dir, 10).parquet().withQueueBatches(1))
                .withWal(ExchangeSettings.WAL_DEFAULTS.toBuilder().flush(flush).build());
        Exchange exchange = open(settings, plugin);
        holdWriterOnFirstBatch(exchange);
        offerDurably(exchange, 10, 35);
        Eventually.await(() -> exchange.counter(RingCounter.SPILLED) == 20, () -> exchange.counter(RingCounter.SPILLED) + " spilled");
        assertEquals(2, exchange.status().spilledBatches());
        assertEquals(List.of(), spillFiles(), "with a log, nothing is spilled to files");
        Captured.assertMessages(Captured.query(exchange, 0, Long.MAX_VALUE), Captured.range(0, 35));
        crashImage(dir, crash);
        plugin.open();
        exchange.close();
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(0, 35));

        GatedPlugin held = new GatedPlugin();
        Exchange restarted = open(settings(crash, 10), held);
        try {
            assertEquals(35, restarted.counter(ExchangeCounter.WAL_RECORDS_REPLAYED), "nothing was in Parquet at the crash");
            Captured.assertMessages(Captured.query(restarted, 0, Long.MAX_VALUE), Captured.range(0, 35));
        } finally {
            closeReleased(restarted, held);
        }
        Captured.assertMessages(Captured.duckDb(crash), Captured.range(0, 35));
    }

    private List<Path> spillFiles() throws IOException {
        Path spill = dir.resolve(".spill").resolve("ex");
        if (!Files.exists(spill)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(spill)) {
            return files.filter(p -> p.getFileName().toString().endsWith(SpillFile.SUFFIX)).toList();
        }
    }

    /**
     * The receipt contract, without timing: when a receipt runs, the log on disk holds its message,
     * so a crash right after the acknowledgement keeps it. Each receipt copies the log the moment it
     * runs; every copy, recovered, must contain that message. The Parquet writer is held throughout:
     * receipts never wait for Parquet.
     */
    @ParameterizedTest(name = "flush = {0}")
    @EnumSource(FlushPolicy.class)
    void aReceiptRunsOnlyOnceItsMessageIsDurableInTheLog(FlushPolicy flush) throws Exception {
        ExchangeSettings settings = settings(dir, 1000).withWal(ExchangeSettings.WAL_DEFAULTS.toBuilder().flush(flush).build());
        Exchange exchange = open(settings, plugin);
        int messages = 5;
        CountDownLatch ran = new CountDownLatch(messages);
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < messages; i++) {
            Path copy = crash.resolve("acked-" + i);
            Runnable receipt = () -> {
                try {
                    crashImage(walDir(dir), copy);
                } catch (IOException | RuntimeException e) {
                    failures.add(e);
                }
                ran.countDown();
            };
            assertTrue(exchange.offer(Captured.topic(i), Captured.payload(i), System.currentTimeMillis(), receipt));
        }
        assertTrue(ran.await(20, TimeUnit.SECONDS), ran.getCount() + " receipts did not run");
        assertEquals(List.of(), failures);
        assertEquals(0, exchange.counter(StoreCounter.FILES_WRITTEN));
        for (int i = 0; i < messages; i++) {
            try (Log log = openLog(crash.resolve("acked-" + i))) {
                assertTrue(payloads(log).contains(i + "=m-" + i), "message " + i + " in the log copied when its receipt ran: "
                        + payloads(log));
            }
        }
        plugin.open();
        exchange.close();
        assertEquals(0, exchange.counter(ExchangeCounter.WAL_RECEIPTS_REFUSED));
    }

    @Test
    void closingRunsEveryWaitingReceiptAfterTheLogIsDurable() throws Exception {
        plugin.open();
        ExchangeSettings settings = settings(dir, 1000).withWal(ExchangeSettings.WAL_DEFAULTS.toBuilder().flush(FlushPolicy.ALWAYS).build());
        Exchange exchange = open(settings, plugin);
        AtomicIntegerArray runs = new AtomicIntegerArray(500);
        for (int i = 0; i < 500; i++) {
            int message = i;
            assertTrue(exchange.offer(Captured.topic(i), Captured.payload(i), System.currentTimeMillis(), () -> runs.incrementAndGet(message)));
        }
        exchange.close();
        for (int i = 0; i < 500; i++) {
            assertEquals(1, runs.get(i), "receipt of message " + i + " ran once");
        }
        assertEquals(0, exchange.counter(ExchangeCounter.WAL_RECEIPTS_REFUSED));
        assertEquals(0, exchange.writeAheadLog().waitingReceipts());
    }

    @Test
    void aRefusedOfferNeverRunsItsReceiptAndAMessageTheRingRefusesRunsItAtOnce() throws Exception {
        RingSettings ring = RingSettings.defaults().withCap(10).withFlushInterval(Duration.ofHours(1)).withFullOp(FullOp.NONE);
        ExchangeSettings settings = settings(dir, 10).withRing(ring).withParquet(settings(dir, 10).parquet().withQueueBatches(1));
        Exchange exchange = open(settings, plugin);
        holdWriterOnFirstBatch(exchange);
        offer(exchange, 10, 20);
        AtomicIntegerArray runs = new AtomicIntegerArray(2);
        assertTrue(exchange.offer("t/0", new byte[] {1}, System.currentTimeMillis(), () -> runs.incrementAndGet(0)));
        Eventually.await(() -> runs.get(0) == 1, () -> "the receipt of a message refused by a blocked batch runs at once");
        assertEquals(1, exchange.counter(RingCounter.REJECTED_BATCH_FULL));
        plugin.open();
        exchange.close();
        assertFalse(exchange.offer("t/0", new byte[] {2}, System.currentTimeMillis(), () -> runs.incrementAndGet(1)));
        assertEquals(0, runs.get(1), "a refused offer leaves its receipt to the caller");
        Captured.assertMessages(Captured.duckDb(dir), Captured.range(0, 20));
    }

    @Test
    void aStatusListsTheLogsCounters() throws Exception {
        plugin.open();
        try (Exchange exchange = open(settings(dir, 10), plugin)) {
            offer(exchange, 0, 25);
            Eventually.await(() -> exchange.status().counters().get("storage_records_appended_total") == 25,
                    () -> exchange.status().counters().toString());
            assertEquals(Durability.WAL, exchange.durability());
        }
    }

    @Test
    void aReplayedBatchIsReadFromTheLogWithItsOwnBytes() throws Exception {
        Exchange exchange = open(settings(dir, 10), plugin);
        holdWriterOnFirstBatch(exchange);
        byte[] empty = new byte[0];
        byte[] large = new byte[300_000];
        for (int i = 0; i < large.length; i++) {
            large[i] = (byte) i;
        }
        CountDownLatch durable = new CountDownLatch(2);
        assertTrue(exchange.offer("t/ü", empty, 1_700_000_000_000L, durable::countDown));
        assertTrue(exchange.offer("t/large", large, 1_700_000_000_001L, durable::countDown));
        assertTrue(durable.await(20, TimeUnit.SECONDS));
        crashImage(dir, crash);
        plugin.open();
        exchange.close();
        GatedPlugin held = new GatedPlugin();
        Exchange restarted = open(settings(crash, 10), held);
        try {
            List<Captured.Row> rows = Captured.query(restarted, 0, Long.MAX_VALUE);
            assertEquals(12, rows.size());
            Captured.Row last = rows.get(11);
            assertEquals("t/large", last.topic());
            assertArrayEquals(large, last.data());
            assertEquals("t/ü", rows.get(10).topic());
            assertArrayEquals(empty, rows.get(10).data());
            assertEquals(11, last.offset());
        } finally {
            closeReleased(restarted, held);
        }
        List<Captured.Row> files = Captured.duckDb(crash);
        assertEquals(12, files.size());
        assertArrayEquals(large, files.get(11).data());
        assertEquals(files.stream().map(Captured.Row::offset).sorted(Comparator.naturalOrder()).toList(),
                Captured.range(0, 12));
    }
}
