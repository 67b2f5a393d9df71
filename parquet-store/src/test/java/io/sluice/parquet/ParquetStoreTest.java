package io.sluice.parquet;

import io.sluice.settings.InvalidSettingException;
import io.sluice.testing.Eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.stream.BinaryVector;
import io.sluice.stream.BooleanVector;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnType;
import io.sluice.stream.DoubleVector;
import io.sluice.stream.IntVector;
import io.sluice.stream.LongVector;
import io.sluice.stream.Schema;
import io.sluice.stream.StringVector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ParquetStoreTest {

    @TempDir
    Path dir;

    private TestBatches.Recorder recorder;

    private ParquetStore open(ParquetSettings settings) throws IOException {
        recorder = new TestBatches.Recorder();
        ParquetStore store = ParquetStore.open("ex", settings, Map.of(FooterKeys.EXCHANGE, "ex"), recorder);
        recorder.store = store;
        return store;
    }

    /** Defaults, but no age limit: the test rows' ts are in 2023. */
    private ParquetSettings settings() {
        return ParquetSettings.defaults(dir.toString()).withRetention(Duration.ZERO);
    }

    /** {@link #settings()} with files published 200 ms after their first row. */
    private ParquetSettings rolling() {
        return settings().withFileRollInterval(Duration.ofMillis(200));
    }

    private List<String> parquetFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".parquet")).sorted().toList();
        }
    }

    private static List<Object[]> readAll(Path dir) throws SQLException {
        return DuckDb.query("SELECT epoch_ms(ts), \"offset\", topic, data FROM read_parquet('" + dir + "/*.parquet') ORDER BY \"offset\"");
    }

    private static void assertRows(List<Object[]> rows, long firstOffset, int count) {
        assertEquals(count, rows.size());
        for (int i = 0; i < count; i++) {
            long offset = firstOffset + i;
            Object[] row = rows.get(i);
            assertEquals(TestBatches.tsOf(offset), ((Number) row[0]).longValue(), "ts of offset " + offset);
            assertEquals(offset, ((Number) row[1]).longValue());
            assertEquals(TestBatches.topicOf(offset), row[2]);
            assertArrayEquals(TestBatches.payloadOf(offset), (byte[]) row[3], "data of offset " + offset);
        }
    }

    @Test
    void batchesLandInNamedFilesThatDuckDbReadsExactly() throws Exception {
        try (ParquetStore store = open(settings())) {
            store.enqueue(TestBatches.raw(0, 100));
            store.enqueue(TestBatches.raw(100, 50));
        }
        assertRows(readAll(dir), 0, 150);
        for (String name : parquetFiles()) {
            assertTrue(name.matches("sluice_ex-\\d{13}~\\d{13}_\\d+\\.parquet"), name);
        }
        List<Object[]> meta = DuckDb.query("SELECT decode(key), decode(value) FROM parquet_kv_metadata('" + dir + "/*.parquet')"
                + " WHERE decode(key) = '" + FooterKeys.MAX_OFFSET + "' ORDER BY CAST(decode(value) AS BIGINT)");
        assertEquals("149", meta.get(meta.size() - 1)[1]);
    }

    @Test
    void fileNameCarriesTheTsRangeAndSequence() throws Exception {
        try (ParquetStore store = open(rolling())) {
            store.enqueue(TestBatches.raw(20, 30));
            Eventually.await(() -> recorder.publishedCount() == 1, () -> "no file published");
            StoredFile file = store.files().get(0);
            assertEquals(TestBatches.tsOf(20), file.minTs());
            assertEquals(TestBatches.tsOf(49), file.maxTs());
            assertEquals("sluice_ex-" + file.minTs() + "~" + file.maxTs() + "_0.parquet", file.name());
            assertEquals(Files.size(dir.resolve(file.name())), file.bytes());
        }
    }

    @Test
    void batchesBecomeRowGroupsOfOneOpenFilePublishedAtClose() throws Exception {
        ParquetStore store = open(settings());
        TestBatches.Gate gate = new TestBatches.Gate(TestBatches.raw(0, 10).columns);
        store.enqueue(gate);
        gate.entered.await();
        for (int i = 1; i <= 5; i++) {
            store.enqueue(TestBatches.raw(i * 10, 10));
        }
        gate.open.countDown();
        Eventually.await(() -> store.pendingInMemory() == 0, () -> "batches written");
        assertEquals(0, recorder.publishedCount(), "the file stays open");
        store.close();
        assertEquals(1, recorder.published().size());
        assertEquals(6, recorder.batchesPerFile.get(0).size());
        assertRows(readAll(dir), 0, 60);
        assertEquals(6, DuckDb.query("SELECT DISTINCT row_group_id FROM parquet_metadata('" + dir + "/*.parquet')").size(),
                "one row group per batch");
    }

    @Test
    void fileSizeStartsANewFileBetweenBatches() throws Exception {
        ParquetStore store = open(settings().withFileSize(ParquetSettings.MIN_FILE_SIZE));
        TestBatches.Gate gate = new TestBatches.Gate(TestBatches.raw(0, 10).columns);
        store.enqueue(gate);
        gate.entered.await();
        for (int i = 1; i <= 4; i++) {
            store.enqueue(TestBatches.raw(i * 1000L, 1000, 8));
        }
        gate.open.countDown();
        Eventually.await(() -> recorder.publishedCount() == 4, () -> "files that reached file_size are published");
        store.close();
        assertEquals(4, recorder.published().size(), "the small first batch shares a file with the next; each other batch fills one");
        assertEquals(2, recorder.batchesPerFile.get(0).size());
        assertEquals(4, parquetFiles().size());
        assertEquals(4, store.counter(StoreCounter.FILES_WRITTEN));
        assertEquals(4010, store.counter(StoreCounter.RECORDS_WRITTEN));
    }

    @Test
    void fileCountRetentionDeletesTheOldestFiles() throws Exception {
        ParquetStore store = open(rolling().withFileCount(3));
        for (int i = 0; i < 6; i++) {
            store.enqueue(TestBatches.raw(i * 10L, 10));
            int expected = i + 1;
            Eventually.await(() -> recorder.publishedCount() == expected, () -> "file " + expected);
        }
        store.close();
        assertEquals(3, parquetFiles().size());
        assertEquals(3, store.files().size());
        assertEquals(List.of(3L, 4L, 5L), store.files().stream().map(StoredFile::seq).toList());
        assertEquals(3, store.counter(StoreCounter.FILES_DELETED));
        assertRows(readAll(dir), 30, 30);
    }

    @Test
    void retentionAlsoAppliesToFilesFoundAtOpen() throws Exception {
        try (ParquetStore store = open(rolling())) {
            for (int i = 0; i < 4; i++) {
                store.enqueue(TestBatches.raw(i * 10L, 10));
                int expected = i + 1;
                Eventually.await(() -> recorder.publishedCount() == expected, () -> "file " + expected);
            }
        }
        try (ParquetStore store = open(settings().withFileCount(2))) {
            assertEquals(2, store.files().size());
            assertEquals(39, store.recovery().maxOffset());
        }
        assertEquals(2, parquetFiles().size());
    }

    @Test
    void crashLeftoverTempFileIsRemovedAtOpenAndNeverRead() throws Exception {
        try (ParquetStore store = open(settings())) {
            store.enqueue(TestBatches.raw(0, 10));
        }
        Path leftover = dir.resolve(".sluice_ex_1.parquet.tmp");
        Files.write(leftover, "PAR1 half a file".getBytes());
        Path otherExchange = dir.resolve(".sluice_other_1.parquet.tmp");
        Files.write(otherExchange, new byte[] {1});
        try (ParquetStore store = open(settings())) {
            assertFalse(Files.exists(leftover));
            assertTrue(Files.exists(otherExchange), "another exchange's file is not ours to touch");
            assertEquals(1, store.recovery().tempFilesRemoved());
            assertEquals(1, store.counter(StoreCounter.TEMP_FILES_REMOVED));
            assertEquals(9, store.recovery().maxOffset());
            assertEquals(TestBatches.tsOf(9), store.recovery().maxTs());
            store.enqueue(TestBatches.raw(10, 10));
        }
        assertEquals(List.of(0L, 1L), parquetFiles().stream().map(n -> Long.parseLong(n.replaceAll(".*_(\\d+)\\.parquet", "$1"))).toList());
        assertRows(readAll(dir), 0, 20);
    }

    @Test
    void unreadableNewestFileIsRenamedAsideAndRecoveryUsesThePreviousOne() throws Exception {
        try (ParquetStore store = open(rolling())) {
            store.enqueue(TestBatches.raw(0, 10));
            Eventually.await(() -> recorder.publishedCount() == 1, () -> "first file");
            store.enqueue(TestBatches.raw(10, 10));
        }
        String newest = parquetFiles().stream().filter(n -> n.endsWith("_1.parquet")).findFirst().orElseThrow();
        Path path = dir.resolve(newest);
        byte[] bytes = Files.readAllBytes(path);
        Files.write(path, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        try (ParquetStore store = open(settings())) {
            assertEquals(1, store.recovery().corruptFiles());
            assertEquals(9, store.recovery().maxOffset());
            assertEquals(1, store.files().size());
        }
        assertTrue(Files.exists(dir.resolve(newest + ParquetStore.CORRUPT_SUFFIX)));
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void everyCompressionIsReadableByDuckDb(Compression compression) throws Exception {
        try (ParquetStore store = open(settings().withCompress(compression))) {
            store.enqueue(TestBatches.raw(0, 500));
        }
        assertRows(readAll(dir), 0, 500);
        List<Object[]> codecs = DuckDb.query("SELECT DISTINCT compression FROM parquet_metadata('" + dir + "/*.parquet')");
        String expected = compression == Compression.LZ4 ? "LZ4_RAW" : compression.name();
        assertEquals(expected, String.valueOf(codecs.get(0)[0]).toUpperCase(), "codec in the file");
    }

    @Test
    void rangeScanSkipsRowGroupsByStatisticsAndReturnsExactlyTheRange() throws Exception {
        try (ParquetStore store = open(rolling().withRowGroupBytes(ParquetSettings.MIN_ROW_GROUP_BYTES))) {
            store.enqueue(TestBatches.raw(0, 20_000, 100));
            store.enqueue(TestBatches.raw(20_000, 20_000, 100));
            Eventually.await(() -> recorder.publishedCount() >= 1 && store.pendingInMemory() == 0, () -> "files");
            StoredFile file = store.files().get(0);
            long start = TestBatches.tsOf(1000);
            long end = TestBatches.tsOf(1999);
            try (FileScan scan = store.scan(file, start, end, List.of("offset"))) {
                int groups = DuckDb.query("SELECT DISTINCT row_group_id FROM parquet_metadata('" + file.location().replace("file:", "") + "')").size();
                assertTrue(groups > 4, "expected several row groups, got " + groups);
                assertTrue(scan.rowGroupsToRead() < groups, scan.rowGroupsToRead() + " of " + groups + " row groups read");
                assertEquals(List.of("ts", "offset"), scan.schema().columns().stream().map(Column::name).toList());
                long expected = 1000;
                for (ColumnBatch chunk = scan.next(); chunk != null; chunk = scan.next()) {
                    assertTrue(chunk.rows() <= FileScan.CHUNK_ROWS);
                    for (int r = chunk.start(); r < chunk.end(); r++) {
                        assertEquals(expected++, chunk.longs("offset").get(r));
                    }
                }
                assertEquals(2000, expected);
            }
            try (StoreScan scan = store.scan(TestBatches.tsOf(19_990), TestBatches.tsOf(20_009), List.of("data", "topic"))) {
                List<Long> offsets = new ArrayList<>();
                for (ColumnBatch chunk = scan.next(); chunk != null; chunk = scan.next()) {
                    assertNull(chunk.vector("offset"));
                    for (int r = chunk.start(); r < chunk.end(); r++) {
                        offsets.add((chunk.longs("ts").get(r) - TestBatches.BASE_TS) * 10);
                    }
                }
                assertEquals(20, offsets.size());
            }
        }
    }

    @Test
    void batchesWithDifferentColumnsShareAFileWithTheUnionOfTheirColumns() throws Exception {
        Schema a = Schema.of(Column.TS, Column.OFFSET, Column.required("0001", ColumnType.BINARY));
        Schema b = Schema.of(Column.TS, Column.OFFSET, Column.required("0002", ColumnType.STRING));
        ColumnBatch first = ColumnBatch.of(a, List.of(LongVector.of(new long[] {1, 2}), LongVector.of(new long[] {0, 1}),
                BinaryVector.of(new byte[][] {{1}, {2}})), 2);
        ColumnBatch second = ColumnBatch.of(b, List.of(LongVector.of(new long[] {3}), LongVector.of(new long[] {2}),
                StringVector.of(new String[] {"x"})), 1);
        ParquetStore store = open(settings());
        TestBatches.Gate gate = new TestBatches.Gate(TestBatches.raw(100, 1).columns);
        store.enqueue(gate);
        gate.entered.await();
        store.enqueue(new TestBatches.Fixed(first));
        store.enqueue(new TestBatches.Fixed(second));
        gate.open.countDown();
        store.close();
        String file = recorder.published().get(1).location().replace("file:", "");
        List<Object[]> rows = DuckDb.query("SELECT \"offset\", \"0001\", \"0002\" FROM read_parquet('" + file + "') ORDER BY 1");
        assertEquals(3, rows.size());
        assertArrayEquals(new byte[] {2}, (byte[]) rows.get(1)[1]);
        assertNull(rows.get(1)[2]);
        assertEquals("x", rows.get(2)[2]);
        assertNull(rows.get(2)[1]);
    }

    @Test
    void everyColumnTypeRequiredOrNullableReadsBackExactlyInDuckDb() throws Exception {
        Schema schema = Schema.of(Column.TS, Column.OFFSET, Column.nullable("i", ColumnType.INT32),
                Column.nullable("d", ColumnType.DOUBLE), Column.required("b", ColumnType.BOOLEAN),
                Column.nullable("s", ColumnType.STRING), Column.nullable("x", ColumnType.BINARY));
        boolean[] nullAt1 = {false, true, false};
        ColumnBatch batch = ColumnBatch.of(schema, List.of(LongVector.of(new long[] {5, 5, 6}), LongVector.of(new long[] {0, 1, 2}),
                IntVector.nullable(new int[] {-7, 0, Integer.MAX_VALUE}, nullAt1),
                DoubleVector.nullable(new double[] {1.5, 0, -0.25}, nullAt1), BooleanVector.of(new boolean[] {true, false, true}),
                StringVector.of(new String[] {"é", null, "z"}), BinaryVector.of(new byte[][] {{}, null, {9, 8}})), 3);
        try (ParquetStore store = open(settings())) {
            store.enqueue(new TestBatches.Fixed(batch));
        }
        List<Object[]> rows = DuckDb.query("SELECT epoch_ms(ts), \"offset\", i, d, b, s, x FROM read_parquet('" + dir + "/*.parquet') ORDER BY 2");
        assertEquals(3, rows.size());
        assertArrayEquals(new Object[] {5L, 0L, -7, 1.5, true, "é"}, Arrays.copyOf(rows.get(0), 6));
        assertArrayEquals(new byte[0], (byte[]) rows.get(0)[6]);
        assertArrayEquals(new Object[] {5L, 1L, null, null, false, null, null}, rows.get(1));
        assertArrayEquals(new Object[] {6L, 2L, Integer.MAX_VALUE, -0.25, true, "z"}, Arrays.copyOf(rows.get(2), 6));
        assertArrayEquals(new byte[] {9, 8}, (byte[]) rows.get(2)[6]);
    }

    @Test
    void batchThePluginCannotEncodeIsDiscardedAndReported() throws Exception {
        try (ParquetStore store = open(rolling())) {
            store.enqueue(new TestBatches.Fixed(null) {
                @Override
                public ColumnBatch encode() {
                    throw new IllegalStateException("plugin bug on purpose");
                }
            });
            store.enqueue(TestBatches.raw(0, 5));
            Eventually.await(() -> recorder.publishedCount() == 1, () -> "the good batch");
            assertEquals(1, recorder.discarded.size());
            assertEquals(1, store.counter(StoreCounter.BATCHES_DISCARDED));
            assertEquals(0, store.pendingInMemory());
        }
    }

    @Test
    void batchWithoutKeyColumnsIsRefused() throws Exception {
        Schema noKeys = Schema.of(Column.required("data", ColumnType.BINARY));
        try (ParquetStore store = open(settings())) {
            store.enqueue(new TestBatches.Fixed(ColumnBatch.of(noKeys, List.of(BinaryVector.of(new byte[][] {{1}})), 1)));
            Eventually.await(() -> recorder.discarded.size() == 1, () -> "not discarded");
        }
        assertEquals(List.of(), parquetFiles());
    }

    @Test
    void failedWritesAreRetriedUntilTheDirectoryComesBack() throws Exception {
        ParquetStore store = open(rolling());
        Path moved = dir.resolveSibling(dir.getFileName() + "-away");
        Files.move(dir, moved);
        Files.writeString(dir, "a file where the directory was");
        store.enqueue(TestBatches.raw(0, 10));
        Eventually.await(() -> store.counter(StoreCounter.WRITE_ERRORS) >= 1, () -> "no failed write");
        assertFalse(store.hasRoom() && store.pendingInMemory() == 0);
        Files.delete(dir);
        Files.move(moved, dir);
        Eventually.await(() -> recorder.publishedCount() == 1, () -> "not written after the directory came back");
        store.close();
        assertRows(readAll(dir), 0, 10);
    }

    @Test
    void closeGivesUpAfterRetriesAndHandsBackWhatItCouldNotWrite() throws Exception {
        ParquetStore store = open(settings());
        Path moved = dir.resolveSibling(dir.getFileName() + "-gone");
        Files.move(dir, moved);
        Files.writeString(dir, "not a directory");
        TestBatches.Fixed batch = TestBatches.raw(0, 10);
        store.enqueue(batch);
        store.close();
        assertEquals(List.of(batch), recorder.unwritten);
        assertEquals(1, store.counter(StoreCounter.BATCHES_UNWRITTEN));
        assertTrue(store.counter(StoreCounter.WRITE_ERRORS) >= StoreWriter.CLOSING_ATTEMPTS);
        assertThrows(IllegalStateException.class, () -> store.enqueue(batch));
    }

    @Test
    void queueCapacityCountsBatchesUntilTheyAreWritten() throws Exception {
        ParquetStore store = open(settings().withQueueBatches(2));
        TestBatches.Gate gate = new TestBatches.Gate(TestBatches.raw(0, 1).columns);
        store.enqueue(gate);
        gate.entered.await();
        assertTrue(store.hasRoom());
        store.enqueue(TestBatches.raw(1, 1));
        assertFalse(store.hasRoom(), "a batch being encoded still holds its place");
        gate.open.countDown();
        Eventually.await(store::hasRoom, () -> "room never came back");
        store.close();
        assertRows(readAll(dir), 0, 2);
    }

    @Test
    void fileRollIntervalPublishesAnOpenFile() throws Exception {
        try (ParquetStore store = open(settings().withFileRollInterval(Duration.ofMillis(300)))) {
            store.enqueue(TestBatches.raw(0, 10));
            store.enqueue(TestBatches.raw(10, 10));
            Eventually.await(() -> recorder.publishedCount() == 1, () -> "the open file was never published by age");
            assertEquals(1, parquetFiles().size());
            assertRows(readAll(dir), 0, 20);
        }
    }

    @Test
    void aFileIsDueByItsFirstRowsAgeNotByWhenItWasOpened() throws Exception {
        // rows rewritten from the log after a restart are as old as when they were captured
        try (ParquetStore store = open(settings())) {
            store.enqueue(TestBatches.old(0, 10));
            Eventually.await(() -> recorder.publishedCount() == 1, () -> "a file of day-old rows was not published");
            store.enqueue(TestBatches.raw(10, 10));
            store.enqueue(TestBatches.raw(20, 10));
            Eventually.await(() -> store.counter(StoreCounter.RECORDS_APPENDED) == 30, () -> "the fresh rows were not written");
            assertEquals(1, recorder.publishedCount(), "a file of fresh rows waits for file_roll_interval");
        }
        assertRows(readAll(dir).subList(10, 30), 10, 20);
    }

    @Test
    void retentionRemovesFilesByAgeButKeepsTheNewest() throws Exception {
        try (ParquetStore store = open(rolling().withRetention(Duration.ofHours(1)))) {
            store.enqueue(TestBatches.old(0, 10)); // older than an hour
            Eventually.await(() -> recorder.publishedCount() == 1, () -> "first file");
            assertEquals(1, store.files().size(), "the newest file stays, whatever its age");
            store.enqueue(TestBatches.raw(10, 10));
            Eventually.await(() -> recorder.publishedCount() == 2, () -> "second file");
            Eventually.await(() -> store.counter(StoreCounter.FILES_DELETED) == 1, () -> "the older file was not deleted by age");
            assertEquals(1, store.files().get(0).seq());
            synchronized (recorder) {
                assertEquals(List.of(0L), recorder.expired.stream().map(StoredFile::seq).toList());
            }
        }
        assertRows(readAll(dir), 10, 10);
    }

    @Test
    void crashedOpenFileIsPublishedFromItsRowGroupJournal() throws Exception {
        Path crashed = Files.createDirectory(dir.resolve("crashed"));
        recorder = new TestBatches.Recorder();
        try (ParquetStore store = ParquetStore.open("ex", settings().withDir(dir.resolve("live").toString()), Map.of(), recorder, true)) {
            recorder.store = store;
            store.enqueue(TestBatches.raw(0, 100));
            store.enqueue(TestBatches.raw(100, 50));
            Eventually.await(() -> store.pendingInMemory() == 0, () -> "batches written");
            // What a crash leaves: the open file and its journal, as they are now.
            try (Stream<Path> files = Files.list(dir.resolve("live"))) {
                for (Path file : files.toList()) {
                    Files.copy(file, crashed.resolve(file.getFileName()));
                }
            }
            assertEquals(0, recorder.publishedCount());
        }
        Files.write(crashed.resolve(".sluice_ex_0.parquet.tmp"), "a torn row group".getBytes(), java.nio.file.StandardOpenOption.APPEND);
        try (ParquetStore store = ParquetStore.open("ex", settings().withDir(crashed.toString()), Map.of(), new TestBatches.Recorder(), true)) {
            assertEquals(1, store.files().size());
            assertEquals(149, store.recovery().maxOffset());
            assertEquals(1, store.counter(StoreCounter.FILES_RECOVERED));
        }
        assertRows(readAll(crashed), 0, 150);
        try (Stream<Path> files = Files.list(crashed)) {
            assertEquals(List.of(), files.filter(p -> p.getFileName().toString().startsWith(".")).toList(), "no leftovers");
        }
    }

    @Test
    void duckDbReadsTsAsATimestamp() throws Exception {
        try (ParquetStore store = open(settings())) {
            store.enqueue(TestBatches.raw(0, 10));
        }
        List<Object[]> rows = DuckDb.query("SELECT typeof(min(ts)), epoch_ms(min(ts)) FROM read_parquet('" + dir + "/*.parquet')");
        assertEquals("TIMESTAMP WITH TIME ZONE", rows.get(0)[0]);
        assertEquals(TestBatches.tsOf(0), ((Number) rows.get(0)[1]).longValue());
        List<Object[]> encodings = DuckDb.query("SELECT path_in_schema, encodings FROM parquet_metadata('" + dir
                + "/*.parquet') WHERE path_in_schema IN ('ts', 'offset') ORDER BY 1");
        assertEquals(2, encodings.size());
        for (Object[] column : encodings) {
            assertTrue(String.valueOf(column[1]).contains("DELTA_BINARY_PACKED"), column[0] + ": " + column[1]);
        }
    }

    @Test
    void filesWrittenBeforeTheTimestampAnnotationStillRead() throws Exception {
        OldFiles.write(dir.resolve("sluice_ex-" + TestBatches.tsOf(0) + "~" + TestBatches.tsOf(9) + "_0.parquet"), 0, 10);
        try (ParquetStore store = open(settings())) {
            assertEquals(9, store.recovery().maxOffset());
            store.enqueue(TestBatches.raw(10, 10));
        }
        List<Object[]> old = DuckDb.query("SELECT ts, \"offset\", topic, data FROM read_parquet('" + dir + "/*_0.parquet') ORDER BY 2");
        assertRows(old, 0, 10);
        List<Long> offsets = new ArrayList<>();
        try (ParquetStore store = open(settings()); StoreScan scan = store.scan(0, Long.MAX_VALUE, List.of())) {
            for (ColumnBatch chunk = scan.next(); chunk != null; chunk = scan.next()) {
                for (int r = chunk.start(); r < chunk.end(); r++) {
                    assertEquals(TestBatches.tsOf(offsets.size()), chunk.longs("ts").get(r));
                    offsets.add(chunk.longs("offset").get(r));
                }
            }
        }
        assertEquals(20, offsets.size());
    }

    @Test
    void badSettingsNameTheirKey() {
        assertKey("parquet.file_count", () -> settings().withFileCount(0));
        assertKey("parquet.file_size", () -> settings().withFileSize(100));
        assertKey("parquet.queue_batches", () -> settings().withQueueBatches(0));
        assertKey("parquet.file_roll_interval", () -> settings().withFileRollInterval(Duration.ZERO));
        assertKey("parquet.retention", () -> settings().withRetention(Duration.ofDays(-1)));
        assertKey("parquet.row_group_bytes", () -> settings().withRowGroupBytes(1));
        assertKey("parquet.dir", () -> settings().withDir(" "));
        assertKey("parquet.file_name_prefix", () -> settings().withFileNamePrefix("a/b"));
        assertKey("parquet.file_name_prefix", () -> settings().withFileNamePrefix(".hidden"));
        assertKey("parquet.compress", () -> Compression.of("brotli"));
        assertKey("name", () -> new FileName("p", "a b"));
        assertEquals(Compression.LZ4, Compression.of("LZ4"));
    }

    @Test
    void zstdLevelFromTheHadoopSettingsIsCheckedAtOpenAndWritesFilesDuckDbReads() throws Exception {
        String key = "parquet.compression.codec.zstd.level";
        for (String bad : List.of("23", "fast")) {
            assertKey("parquet.hadoop." + key, () -> {
                try {
                    open(withHadoop(Map.of(key, bad)));
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            });
        }
        try (ParquetStore store = open(withHadoop(Map.of(key, "1")))) {
            store.enqueue(TestBatches.raw(0, 1_000));
        }
        assertRows(readAll(dir), 0, 1_000);
        List<Object[]> codecs = DuckDb.query("SELECT DISTINCT compression FROM parquet_metadata('" + dir + "/*.parquet')");
        assertEquals(List.of("ZSTD"), codecs.stream().map(row -> row[0]).toList());
        assertEquals(1_000L, DuckDb.query("SELECT count(*) FROM read_parquet('" + dir + "/*.parquet')").get(0)[0]);
    }

    private ParquetSettings withHadoop(Map<String, String> hadoop) {
        return settings().withHadoop(hadoop);
    }

    @Test
    void directoryThatCannotBeCreatedNamesTheKey() throws IOException {
        Path file = dir.resolve("plain-file");
        Files.writeString(file, "x");
        assertKey("parquet.dir", () -> {
            try {
                open(settings().withDir(file.resolve("sub").toString()));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertKey("parquet.dir", () -> {
            try {
                open(settings().withDir("nosuchscheme://host/dir"));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
    }

    private static void assertKey(String key, Runnable action) {
        InvalidSettingException e = assertThrows(InvalidSettingException.class, action::run);
        assertEquals(key, e.key(), e.getMessage());
    }
}
