package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.sluice.testing.Eventually;

/**
 * {@code kill -9} of a process writing to the adapter ({@link CrashingWriter}), then a reopen: every
 * acknowledged record is there, in order, once, with no gap in the offsets; a memory shard has lost
 * its records, as documented, but never gives an acknowledged offset out again. Every acknowledged
 * group-offset commit is there too, also when it was acknowledged from the offset cache. And no
 * copy of RocksDB's native library outlives the killed process.
 */
class KillNineTest {
    private static final int ACKS_BEFORE_KILL = 1500;

    @TempDir
    Path dir;

    /** What the writer printed before it died. */
    private record Acknowledged(Map<Long, String> records, long lastCommit) {
    }

    @ParameterizedTest(name = "{0}, flush = {1}, enable_cache = {2}")
    @CsvSource({"segment, interval, false", "segment, always, false", "rocksdb, interval, false",
            "rocksdb, always, false", "rocksdb, none, true", "memory, interval, false"})
    void aKilledWriterLosesNothingAcknowledged(String engine, String flush, boolean enableCache) throws Exception {
        Acknowledged acked = runAndKill(engine, flush, enableCache);
        try (var left = Files.list(writerTmp())) {
            assertEquals(List.of(), left.toList(), "the killed writer left nothing in its temporary directory");
        }
        try (StorageAdapter adapter = StorageAdapter.open(dir, null,
                StorageAdapterSettings.defaults().withEnableCache(enableCache))) {
            long lastAcked = acked.records().keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
            assertTrue(adapter.endOffset(CrashingWriter.SHARD) > lastAcked,
                    "end offset " + adapter.endOffset(CrashingWriter.SHARD) + " after the last acknowledged " + lastAcked);
            assertTrue(adapter.groupOffset(CrashingWriter.GROUP, CrashingWriter.SHARD).orElseThrow() >= acked.lastCommit(),
                    "the last acknowledged commit " + acked.lastCommit() + " is there");
            if (!"memory".equals(engine)) {
                assertEveryRecordInOrderOnce(adapter, acked.records());
            }
        }
    }

    /**
     * A power cut loses what the cache had not synced; deleting the cache after a kill is the worst
     * case of that: the group keeps an offset it committed (the last write-through), never one past
     * the last acknowledged commit.
     */
    @Test
    void withoutItsCacheAGroupGoesBackToAnEarlierCommitNeverForward() throws Exception {
        Acknowledged acked = runAndKill("segment", "interval", true);
        deleteTree(dir.resolve("group-offsets-cache"));
        try (StorageAdapter adapter = StorageAdapter.open(dir)) {
            long offset = adapter.groupOffset(CrashingWriter.GROUP, CrashingWriter.SHARD).orElseThrow();
            // the writer prints a commit after it returns, so the kill may fall between: one commit
            // (ten records on) may have been written through without the test seeing it
            assertTrue(offset > 0 && offset <= acked.lastCommit() + 10, "offset " + offset + ", last acknowledged "
                    + acked.lastCommit());
            assertEquals(1, offset % 10, "a value the writer committed (offset + 1 of every tenth record)");
        }
    }

    /** The killed writer's temporary directory: RocksDB's native library must not be left in it. */
    private Path writerTmp() {
        return dir.resolve("writer-tmp");
    }

    private static void deleteTree(Path root) throws IOException {
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private Acknowledged runAndKill(String engine, String flush, boolean enableCache) throws Exception {
        Files.createDirectories(writerTmp());
        Process writer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + writerTmp(), "-cp", System.getProperty("java.class.path"), CrashingWriter.class.getName(),
                dir.toString(), engine, flush, Boolean.toString(enableCache))
                .redirectError(dir.resolve("writer.err").toFile())
                .start();
        Map<Long, String> records = new TreeMap<>();
        long[] lastCommit = {-1};
        Thread reader = new Thread(() -> read(writer, records, lastCommit), "kill-nine-reader");
        reader.start();
        try {
            Eventually.await(() -> {
                synchronized (records) {
                    return records.size() >= ACKS_BEFORE_KILL || !writer.isAlive();
                }
            }, "the writer acknowledges " + ACKS_BEFORE_KILL + " records");
            assertTrue(writer.isAlive(), "the writer runs until killed");
        } finally {
            writer.toHandle().destroyForcibly();
            assertTrue(writer.waitFor(30, TimeUnit.SECONDS), "the writer is dead");
            reader.join(30_000);
        }
        assertEquals(137, writer.exitValue(), "SIGKILL");
        synchronized (records) {
            return new Acknowledged(new TreeMap<>(records), lastCommit[0]);
        }
    }

    /**
     * Only whole lines count: one cut by the kill ends without its " ." and was never acknowledged.
     * The kill goes through the process handle, which leaves the pipe open, so this reads to its end.
     */
    private static void read(Process writer, Map<Long, String> records, long[] lastCommit) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = lines.readLine()) != null; ) {
                String[] parts = line.split(" ");
                if (!line.endsWith(" .")) {
                    continue;
                }
                synchronized (records) {
                    if (parts[0].equals("ACK")) {
                        records.put(Long.parseLong(parts[1]), parts[2]);
                    } else if (parts[0].equals("COMMIT")) {
                        lastCommit[0] = Long.parseLong(parts[1]);
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("reading the writer's output failed", e);
        }
    }

    private static void assertEveryRecordInOrderOnce(StorageAdapter adapter, Map<Long, String> acked) {
        List<StoredRecord> all = new ArrayList<>();
        long end = adapter.endOffset(CrashingWriter.SHARD);
        for (long offset = 0; offset < end; ) {
            List<StoredRecord> chunk = adapter.readByOffset(CrashingWriter.SHARD, offset, 1000, 1 << 20);
            all.addAll(chunk);
            offset = chunk.get(chunk.size() - 1).offset() + 1;
        }
        for (int i = 0; i < all.size(); i++) {
            assertEquals(i, all.get(i).offset(), "no gap in offsets");
            assertEquals("v" + i, new String(all.get(i).value(), StandardCharsets.UTF_8), "record " + i + " once, in order");
        }
        acked.forEach((offset, value) -> assertEquals(value,
                new String(all.get(offset.intValue()).value(), StandardCharsets.UTF_8), "acknowledged record " + offset));
    }
}
