package io.sluice.parquet.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.parquet.DuckDb;
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
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveComparator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Our page encoding checked by two independent readers: DuckDB reads every value back, and
 * parquet-java reads every value back too, verifies page checksums and reads the statistics,
 * column and offset indexes and encodings. The rows cross page limits (20,000 rows, 1 MiB), row groups, dictionary fallback,
 * nulls in every type and a column the batches lack.
 */
class BatchFileWriterTest {

    private static final int ROWS = 50_000;
    private static final String[] TOPICS = {"plant/a/temp", "plant/b/temp", "plant/é/rpm", "z", "a", "plant/a/rpm",
            "plant/c/vibration/x", "plant/c/vibration/y"};
    private static final Schema FILE = Schema.of(Column.TS, Column.OFFSET, Column.required("topic", ColumnType.STRING),
            Column.nullable("short_text", ColumnType.STRING), Column.nullable("long_text", ColumnType.STRING),
            Column.nullable("i", ColumnType.INT32), Column.nullable("d", ColumnType.DOUBLE),
            Column.nullable("b", ColumnType.BOOLEAN), Column.nullable("missing", ColumnType.DOUBLE),
            Column.required("data", ColumnType.BINARY));

    @TempDir
    Path dir;

    private final long[] ts = new long[ROWS];
    private final long[] offsets = new long[ROWS];
    private final String[] topics = new String[ROWS];
    private final String[] shortText = new String[ROWS];
    private final String[] longText = new String[ROWS];
    private final int[] ints = new int[ROWS];
    private final boolean[] intNulls = new boolean[ROWS];
    private final double[] doubles = new double[ROWS];
    private final boolean[] doubleNulls = new boolean[ROWS];
    private final boolean[] booleans = new boolean[ROWS];
    private final boolean[] booleanNulls = new boolean[ROWS];
    private final byte[][] data = new byte[ROWS][];

    BatchFileWriterTest() {
        Random random = new Random(7);
        for (int i = 0; i < ROWS; i++) {
            ts[i] = 1_700_000_000_000L + i / 7;
            offsets[i] = 3L * i;
            // Equal but not identical text now and then: the dictionary must not depend on identity.
            topics[i] = i % 5 == 0 ? new String(TOPICS[i % TOPICS.length]) : TOPICS[i % TOPICS.length];
            shortText[i] = i % 11 == 0 ? null : Integer.toString(i);
            longText[i] = i % 13 == 0 ? null : "ü".repeat(100) + "-" + i + "-" + "x".repeat(random.nextInt(100));
            ints[i] = (int) ((i * 7919L) % 20_001) - 10_000;
            intNulls[i] = i % 3 == 0;
            doubles[i] = i % 101 == 0 ? Double.NaN : i % 97 == 0 ? -0.0 : i * 0.5 - 100;
            doubleNulls[i] = i % 4 == 0;
            booleans[i] = i % 3 == 1;
            booleanNulls[i] = i % 5 == 0;
            data[i] = new byte[i % 17 == 0 ? 0 : 64];
            random.nextBytes(data[i]);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1L << 30, 64 * 1024})
    void everyValueReadsBackInDuckDbAndParquetJavaVerifiesPagesAndIndexes(long rowGroupBytes) throws Exception {
        Path file = write(rowGroupBytes, CompressionCodecName.ZSTD);
        List<Object[]> rows = DuckDb.query("SELECT epoch_ms(ts), \"offset\", topic, short_text, long_text, i, d, b, missing, data FROM read_parquet('"
                + file + "') ORDER BY \"offset\"");
        assertEquals(ROWS, rows.size());
        for (int i = 0; i < ROWS; i++) {
            Object[] row = rows.get(i);
            String at = "row " + i;
            assertEquals(ts[i], row[0], at);
            assertEquals(offsets[i], row[1], at);
            assertEquals(topics[i], row[2], at);
            assertEquals(shortText[i], row[3], at);
            assertEquals(longText[i], row[4], at);
            assertEquals(intNulls[i] ? null : ints[i], row[5], at);
            assertEquals(doubleNulls[i] ? null : doubles[i], row[6], at);
            assertEquals(booleanNulls[i] ? null : booleans[i], row[7], at);
            assertNull(row[8], at);
            assertArrayEquals(data[i], (byte[]) row[9], at);
        }
        verifyWithParquetJava(file, rowGroupBytes > ROWS * 100L);
        readRowsWithParquetJava(file);
    }

    /** Parquet-java's record reader (Spark's path into Parquet) decodes every value the same. */
    private void readRowsWithParquetJava(Path file) throws IOException {
        try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(),
                new org.apache.hadoop.fs.Path(file.toUri())).withConf(new Configuration()).build()) {
            for (int i = 0; i < ROWS; i++) {
                Group row = reader.read();
                String at = "row " + i;
                assertNotNull(row, at);
                assertEquals(ts[i], row.getLong("ts", 0), at);
                assertEquals(topics[i], row.getString("topic", 0), at);
                assertEquals(longText[i], row.getFieldRepetitionCount("long_text") == 0 ? null : row.getString("long_text", 0), at);
                assertEquals(intNulls[i] ? null : ints[i], row.getFieldRepetitionCount("i") == 0 ? null : row.getInteger("i", 0), at);
                assertEquals(doubleNulls[i] ? null : doubles[i], row.getFieldRepetitionCount("d") == 0 ? null : row.getDouble("d", 0), at);
                assertEquals(booleanNulls[i] ? null : booleans[i], row.getFieldRepetitionCount("b") == 0 ? null : row.getBoolean("b", 0), at);
                assertEquals(0, row.getFieldRepetitionCount("missing"), at);
                assertArrayEquals(data[i], row.getBinary("data", 0).getBytes(), at);
            }
            assertNull(reader.read());
        }
    }

    @Test
    void filtersThatUseTheStatisticsCountExactly() throws Exception {
        Path file = write(64 * 1024, CompressionCodecName.SNAPPY);
        String from = "FROM read_parquet('" + file + "')";
        long topicA = Arrays.stream(topics).filter("plant/a/temp"::equals).count();
        assertEquals(topicA, DuckDb.query("SELECT count(*) " + from + " WHERE topic = 'plant/a/temp'").get(0)[0]);
        assertEquals(0L, DuckDb.query("SELECT count(*) " + from + " WHERE topic = 'plant/zz'").get(0)[0]);
        long inRange = Arrays.stream(ts).filter(t -> t >= ts[12_345] && t <= ts[23_456]).count();
        assertEquals(inRange, DuckDb.query("SELECT count(*) " + from + " WHERE epoch_ms(ts) BETWEEN " + ts[12_345] + " AND "
                + ts[23_456]).get(0)[0]);
        long negative = 0;
        for (int i = 0; i < ROWS; i++) {
            negative += !intNulls[i] && ints[i] < -9_000 ? 1 : 0;
        }
        assertEquals(negative, DuckDb.query("SELECT count(*) " + from + " WHERE i < -9000").get(0)[0]);
    }

    @Test
    void valuesLargerThanAPageAndEmptyValuesReadBack() throws Exception {
        Schema schema = Schema.of(Column.TS, Column.OFFSET, Column.nullable("text", ColumnType.STRING),
                Column.required("data", ColumnType.BINARY));
        int rows = 7;
        Random random = new Random(3);
        long[] keys = new long[rows];
        String[] texts = new String[rows];
        byte[][] payloads = new byte[rows][];
        for (int i = 0; i < rows; i++) {
            keys[i] = i;
            texts[i] = i % 3 == 0 ? "" : i % 3 == 1 ? "t".repeat(2_500_000 + i) : null;
            payloads[i] = new byte[i % 2 == 0 ? 0 : 3_000_000 + i];
            random.nextBytes(payloads[i]);
        }
        Path file = dir.resolve("large.parquet");
        try (BatchFileWriter writer = open(file, schema, 1L << 30, CompressionCodecName.ZSTD)) {
            writer.write(ColumnBatch.of(schema, List.of(LongVector.of(keys), LongVector.of(keys), StringVector.of(texts),
                    BinaryVector.of(payloads)), rows));
        }
        List<Object[]> read = DuckDb.query("SELECT text, data FROM read_parquet('" + file + "') ORDER BY \"offset\"");
        assertEquals(rows, read.size());
        for (int i = 0; i < rows; i++) {
            assertEquals(texts[i], read.get(i)[0], "row " + i);
            assertArrayEquals(payloads[i], (byte[]) read.get(i)[1], "row " + i);
        }
        verifyChecksums(file);
    }

    @Test
    void deltaEncodedKeysRoundTripEveryLongIncludingStepsThatOverflow() throws Exception {
        Schema schema = Schema.of(Column.TS, Column.OFFSET);
        int rows = 1_000;
        long[] values = new long[rows];
        Random random = new Random(7);
        for (int i = 0; i < rows; i++) {
            // Runs of small steps (the usual keys), then extremes whose deltas wrap around.
            values[i] = i < 300 ? 1_700_000_000_000L + i / 7 : i % 5 == 0 ? Long.MIN_VALUE + i : i % 5 == 1 ? Long.MAX_VALUE - i
                    : random.nextLong();
        }
        long[] offsets = new long[rows];
        for (int i = 0; i < rows; i++) {
            offsets[i] = i * 3L;
        }
        Path file = dir.resolve("delta.parquet");
        try (BatchFileWriter writer = open(file, schema, 1L << 30, CompressionCodecName.ZSTD)) {
            writer.write(ColumnBatch.of(schema, List.of(LongVector.of(values), LongVector.of(offsets)), 129)); // a partial block
            writer.write(new ColumnBatch(schema, List.of(LongVector.of(values), LongVector.of(offsets)), 129, rows));
        }
        try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(),
                new org.apache.hadoop.fs.Path(file.toUri())).withConf(new Configuration()).build()) {
            for (int i = 0; i < rows; i++) {
                Group row = reader.read();
                assertEquals(values[i], row.getLong("ts", 0), "ts of row " + i);
                assertEquals(offsets[i], row.getLong("offset", 0), "offset of row " + i);
            }
            assertNull(reader.read());
        }
    }

    @Test
    void aRequiredColumnMissingOrNullableInABatchIsRefusedWithItsName() throws Exception {
        Schema file = Schema.of(Column.TS, Column.OFFSET, Column.required("topic", ColumnType.STRING));
        Schema nullableTopic = Schema.of(Column.TS, Column.OFFSET, Column.nullable("topic", ColumnType.STRING));
        Schema noTopic = Schema.of(Column.TS, Column.OFFSET);
        ColumnBatch withNull = ColumnBatch.of(nullableTopic, List.of(LongVector.of(new long[] {1}), LongVector.of(new long[] {1}),
                StringVector.of(new String[] {null})), 1);
        ColumnBatch without = ColumnBatch.of(noTopic, List.of(LongVector.of(new long[] {1}), LongVector.of(new long[] {1})), 1);
        try (BatchFileWriter writer = open(dir.resolve("bad.parquet"), file, 1 << 20, CompressionCodecName.UNCOMPRESSED)) {
            for (ColumnBatch batch : List.of(withNull, without)) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> writer.write(batch));
                assertTrue(e.getMessage().contains("'topic' is required"), e.getMessage());
            }
            assertEquals(0, writer.rows());
        }
    }

    private Path write(long rowGroupBytes, CompressionCodecName codec) throws IOException {
        Path file = dir.resolve("rows-" + rowGroupBytes + "-" + codec + ".parquet");
        Schema batchSchema = Schema.of(FILE.columns().stream().filter(c -> !c.name().equals("missing")).toList());
        try (BatchFileWriter writer = open(file, FILE, rowGroupBytes, codec)) {
            // A batch is a row group: one batch for one row group, else uneven batches, so runs, pages and
            // row groups end at unrelated rows.
            int step = rowGroupBytes > ROWS * 100L ? ROWS : 7_001;
            for (int from = 0; from < ROWS; from += step) {
                int to = Math.min(ROWS, from + step);
                writer.write(new ColumnBatch(batchSchema, List.of(LongVector.of(ts), LongVector.of(offsets),
                        StringVector.of(topics), StringVector.of(shortText), StringVector.of(longText),
                        IntVector.nullable(ints, intNulls), DoubleVector.nullable(doubles, doubleNulls),
                        BooleanVector.nullable(booleans, booleanNulls), BinaryVector.of(data)), from, to));
            }
        }
        return file;
    }

    private static BatchFileWriter open(Path file, Schema schema, long rowGroupBytes, CompressionCodecName codec)
            throws IOException {
        Configuration conf = new Configuration();
        // ZSTD as the store compresses it; the others through parquet's codecs.
        BytesInputCompressor compressor = codec == CompressionCodecName.ZSTD ? new ZstdPageCompressor(3)
                : new CodecFactory(conf, ParquetProperties.DEFAULT_PAGE_SIZE).getCompressor(codec);
        return new BatchFileWriter(new FileOutput(FileSystem.getLocal(conf),
                new org.apache.hadoop.fs.Path(file.toUri())), schema, compressor,
                new PageBufferPool(), rowGroupBytes, Map.of("test", "yes"), null);
    }

    private void verifyWithParquetJava(Path file, boolean oneRowGroup) throws IOException {
        ParquetReadOptions options = ParquetReadOptions.builder().usePageChecksumVerification(true).build();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), options)) {
            List<BlockMetaData> groups = reader.getRowGroups();
            assertEquals(oneRowGroup, groups.size() == 1, "row groups: " + groups.size());
            long nullInts = 0;
            for (BlockMetaData group : groups) {
                int first = (int) group.getRowIndexOffset();
                int last = first + (int) group.getRowCount() - 1;
                assertEquals(ts[first], chunk(group, "ts").getStatistics().genericGetMin());
                assertEquals(ts[last], chunk(group, "ts").getStatistics().genericGetMax());
                checkTopicStatistics(chunk(group, "topic").getStatistics(), first, last);
                assertTrue(chunk(group, "topic").getEncodingStats().hasDictionaryPages());
                assertFalse(chunk(group, "topic").getEncodingStats().hasNonDictionaryEncodedPages());
                assertFalse(chunk(group, "short_text").getEncodingStats().hasDictionaryPages(), "unique short text stays PLAIN");
                nullInts += chunk(group, "i").getStatistics().getNumNulls();
                int pages = checkIndexes(reader, group, chunk(group, "ts"));
                assertTrue(!oneRowGroup || pages >= ROWS / 20_000, "pages of 20,000 rows at most: " + pages);
                checkIndexes(reader, group, chunk(group, "topic"));
                assertNull(reader.readColumnIndex(chunk(group, "data")), "payloads get no min/max, so no column index");
                assertEquals(group.getRowCount(), chunk(group, "missing").getStatistics().getNumNulls());
            }
            if (oneRowGroup) {
                ColumnChunkMetaData text = chunk(groups.get(0), "long_text");
                assertTrue(text.getEncodingStats().hasDictionaryPages() && text.getEncodingStats().hasNonDictionaryEncodedPages(),
                        "a dictionary past 1 MiB falls back to PLAIN for the rest of the chunk");
            }
            long expectedNullInts = 0;
            for (boolean isNull : intNulls) {
                expectedNullInts += isNull ? 1 : 0;
            }
            assertEquals(expectedNullInts, nullInts);
        }
        verifyChecksums(file);
    }

    /** Reading every row group makes parquet-java check every page's CRC. */
    private static void verifyChecksums(Path file) throws IOException {
        ParquetReadOptions options = ParquetReadOptions.builder().usePageChecksumVerification(true).build();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), options)) {
            int groups = reader.getRowGroups().size();
            int read = 0;
            while (reader.readNextRowGroup() != null) {
                read++;
            }
            assertEquals(groups, read);
        }
    }

    private void checkTopicStatistics(Statistics<?> statistics, int first, int last) {
        Binary min = null;
        Binary max = null;
        for (int i = first; i <= last; i++) {
            Binary topic = Binary.fromString(topics[i]);
            min = min == null || PrimitiveComparator.UNSIGNED_LEXICOGRAPHICAL_BINARY_COMPARATOR.compare(topic, min) < 0 ? topic : min;
            max = max == null || PrimitiveComparator.UNSIGNED_LEXICOGRAPHICAL_BINARY_COMPARATOR.compare(topic, max) > 0 ? topic : max;
        }
        assertEquals(min, statistics.genericGetMin());
        assertEquals(max, statistics.genericGetMax());
        assertEquals(0, statistics.getNumNulls());
    }

    /** Checks the chunk's column and offset indexes agree and cover its rows; returns its page count. */
    private static int checkIndexes(ParquetFileReader reader, BlockMetaData group, ColumnChunkMetaData chunk) throws IOException {
        ColumnIndex columnIndex = reader.readColumnIndex(chunk);
        OffsetIndex offsetIndex = reader.readOffsetIndex(chunk);
        assertNotNull(columnIndex, chunk.getPath().toDotString());
        assertEquals(offsetIndex.getPageCount(), columnIndex.getMinValues().size());
        long rows = 0;
        for (int page = 0; page < offsetIndex.getPageCount(); page++) {
            assertEquals(rows, offsetIndex.getFirstRowIndex(page));
            rows += offsetIndex.getLastRowIndex(page, group.getRowCount()) - offsetIndex.getFirstRowIndex(page) + 1;
            assertTrue(offsetIndex.getLastRowIndex(page, group.getRowCount()) - offsetIndex.getFirstRowIndex(page) < 20_000);
        }
        assertEquals(group.getRowCount(), rows);
        return offsetIndex.getPageCount();
    }

    private static ColumnChunkMetaData chunk(BlockMetaData group, String column) {
        return group.getColumns().stream().filter(c -> c.getPath().toDotString().equals(column)).findFirst().orElseThrow();
    }
}
