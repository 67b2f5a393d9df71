package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.testing.Eventually;


/**
 * What every engine behind the storage adapter must do alike; one subclass per engine runs it. The
 * adapter runs on a scheduler the test owns, so retention and compaction passes run when the test
 * calls {@link #maintain}.
 */
abstract class StorageAdapterContract {
    @TempDir
    Path dir;
    StorageAdapter adapter;
    LogScheduler scheduler;

    /** The engine under test. */
    abstract Engine engine();

    /** The settings of the shards the contract creates: small segments, nothing expires. */
    ShardSettings settings() {
        return settings(LogSettings.builder().segmentBytes(64 * 1024).retentionMs(LogSettings.UNLIMITED).build());
    }

    ShardSettings settings(LogSettings log) {
        return new ShardSettings(engine(), log);
    }

    /** Adapter-wide settings of every open. */
    StorageAdapterSettings adapterSettings() {
        return StorageAdapterSettings.defaults();
    }

    boolean keepsRecords() {
        return engine() != Engine.MEMORY;
    }

    @BeforeEach
    void open() {
        scheduler = new LogScheduler("contract", 1, 3_600_000);
        adapter = StorageAdapter.open(dir, scheduler, adapterSettings());
        adapter.createShard("sensors_0", settings());
    }

    @AfterEach
    void close() {
        if (adapter != null) {
            adapter.close();
        }
        scheduler.close();
    }

    void reopen() {
        adapter.close();
        adapter = StorageAdapter.open(dir, scheduler, adapterSettings());
    }

    /** One retention and compaction pass over every shard, now. */
    void maintain() {
        scheduler.maintain();
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static Record record(String key, String value, long timestamp, String... tags) {
        return new Record(key == null ? null : bytes(key), value == null ? null : bytes(value), timestamp, List.of(tags));
    }

    @Test
    void writesReturnIncreasingOffsetsAndReadByOffsetReturnsTheRecords() {
        assertEquals(0, adapter.write("sensors_0", record("a", "1", 100)));
        assertEquals(1, adapter.write("sensors_0", record(null, "2", 101, "t1")));
        assertArrayEquals(new long[] {2, 3, 4}, adapter.batchWrite("sensors_0",
                List.of(record("b", "3", 102), record("a", "4", 103), record(null, "5", 104))));
        List<StoredRecord> all = adapter.readByOffset("sensors_0", 0, 100, 1 << 20);
        assertEquals(5, all.size());
        assertEquals(record(null, "2", 101, "t1"), all.get(1).record());
        assertEquals(4, all.get(4).offset());
        assertEquals(0, adapter.startOffset("sensors_0"));
        assertEquals(5, adapter.endOffset("sensors_0"));
    }

    @Test
    void headersComeBackInOrderWithTagsAndAfterAReopen() {
        List<Header> headers = List.of(new Header("mqtt.qos", bytes("1")), new Header("empty", null),
                new Header("mqtt.qos", new byte[0]), new Header("ü", bytes("two words")));
        Record withBoth = new Record(bytes("k"), bytes("v"), 100, List.of("t1", "t2"), headers);
        Record plain = record("k", "w", 101);
        adapter.batchWrite("sensors_0", List.of(withBoth, plain));
        assertEquals(List.of(withBoth, plain), records(adapter.readByOffset("sensors_0", 0, 10, 1 << 20)));
        assertEquals(List.of(withBoth), records(adapter.readByTag("sensors_0", "t2", 0, 10)));
        assertEquals(1, adapter.readByOffset("sensors_0", 0, 10, withBoth.payloadBytes()).size(),
                "header bytes count towards maxBytes");
        reopen();
        if (keepsRecords()) {
            assertEquals(List.of(withBoth, plain), records(adapter.readByOffset("sensors_0", 0, 10, 1 << 20)));
        }
    }

    @Test
    void aVisitingReadHandsOutTheRecordsOfReadByOffsetWithTheirHeadersEncoded() {
        List<Header> headers = List.of(new Header("mqtt.qos", bytes("1")), new Header("empty", null),
                new Header("mqtt.qos", new byte[0]), new Header("ü", bytes("two words")));
        List<Record> written = List.of(new Record(bytes("k"), bytes("v"), 100, List.of("t1"), headers),
                record(null, "w", 90), record("gone", null, 101), new Record(null, new byte[0], 102, List.of(), headers));
        adapter.batchWrite("sensors_0", written);
        List<StoredRecord> visited = new ArrayList<>();
        assertEquals(4, adapter.readByOffset("sensors_0", 0, 10, 1 << 20, record -> visited.add(copy(record))));
        assertEquals(withoutTags(adapter.readByOffset("sensors_0", 0, 10, 1 << 20)), visited);
        for (int[] limits : new int[][] {{1, 1 << 20}, {10, 1}, {10, written.get(0).payloadBytes() + 2}, {2, 1 << 20}}) {
            List<StoredRecord> some = new ArrayList<>();
            assertEquals(adapter.readByOffset("sensors_0", 1, limits[0], limits[1]).size(),
                    adapter.readByOffset("sensors_0", 1, limits[0], limits[1], record -> some.add(copy(record))));
            assertEquals(withoutTags(adapter.readByOffset("sensors_0", 1, limits[0], limits[1])), some,
                    "limits " + limits[0] + ", " + limits[1]);
        }
        assertEquals(0, adapter.readByOffset("sensors_0", 4, 10, 1 << 20, record -> visited.add(copy(record))));
        assertThrows(OffsetOutOfRangeException.class, () -> adapter.readByOffset("sensors_0", 5, 1, 100, record -> { }));
    }

    /** The flyweight's fields copied out, its headers decoded from the encoding it documents. */
    static StoredRecord copy(RecordFlyweight record) {
        byte[] key = record.keyLength() < 0 ? null : new byte[record.keyLength()];
        byte[] value = record.valueLength() < 0 ? null : new byte[record.valueLength()];
        if (key != null) {
            record.copyKey(key, 0);
        }
        if (value != null) {
            record.copyValue(value, 0);
        }
        byte[] encoded = new byte[record.headersSize()];
        record.copyHeaders(encoded, 0);
        ByteBuffer in = ByteBuffer.wrap(encoded);
        List<Header> headers = new ArrayList<>();
        for (int count = readVarint(in); count > 0; count--) {
            byte[] name = new byte[readVarint(in)];
            in.get(name);
            int length = readVarint(in);
            byte[] bytes = length < 0 ? null : new byte[length];
            if (bytes != null) {
                in.get(bytes);
            }
            headers.add(new Header(new String(name, StandardCharsets.UTF_8), bytes));
        }
        assertEquals(0, in.remaining(), "headersSize covers the headers exactly");
        // Tags are the storage's own and not part of the flyweight; compare records without them.
        return new StoredRecord(record.offset(), new Record(key, value, record.timestamp(), List.of(), headers));
    }

    /** Tags are the storage's own labels, which the flyweight leaves out. */
    static List<StoredRecord> withoutTags(List<StoredRecord> records) {
        return records.stream().map(stored -> new StoredRecord(stored.offset(), new Record(stored.key(), stored.value(),
                stored.timestamp(), List.of(), stored.headers()))).toList();
    }

    private static int readVarint(ByteBuffer in) {
        int raw = 0;
        for (int shift = 0; ; shift += 7) {
            byte b = in.get();
            raw |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
    }

    static List<Record> records(List<StoredRecord> stored) {
        return stored.stream().map(StoredRecord::record).toList();
    }

    @Test
    void readByOffsetHonoursMaxRecordsAndMaxBytesAndAlwaysReturnsOneRecord() {
        for (int i = 0; i < 20; i++) {
            adapter.write("sensors_0", record(null, "x".repeat(10), i));
        }
        assertEquals(5, adapter.readByOffset("sensors_0", 3, 5, 1 << 20).size());
        assertEquals(3, adapter.readByOffset("sensors_0", 0, 100, 30).size());
        assertEquals(1, adapter.readByOffset("sensors_0", 0, 100, 1).size());
        assertEquals(List.of(), adapter.readByOffset("sensors_0", 20, 100, 1 << 20));
    }

    @Test
    void readByKeyFindsEveryVersionOfAKeyInOrder() {
        adapter.write("sensors_0", record("a", "1", 1));
        adapter.write("sensors_0", record("b", "2", 2));
        adapter.write("sensors_0", record("a", "3", 3));
        adapter.write("sensors_0", record(null, "4", 4));
        List<StoredRecord> found = adapter.readByKey("sensors_0", bytes("a"), 0, 10);
        assertEquals(List.of(0L, 2L), found.stream().map(StoredRecord::offset).toList());
        assertEquals(1, adapter.readByKey("sensors_0", bytes("a"), 1, 10).size());
        assertEquals(1, adapter.readByKey("sensors_0", bytes("a"), 0, 1).size());
        assertEquals(List.of(), adapter.readByKey("sensors_0", bytes("zz"), 0, 10));
    }

    @Test
    void readByTagFindsTaggedRecords() {
        adapter.write("sensors_0", record(null, "1", 1, "room/1", "hot"));
        adapter.write("sensors_0", record(null, "2", 2, "room/2"));
        adapter.write("sensors_0", record(null, "3", 3, "room/1"));
        assertEquals(List.of(0L, 2L), adapter.readByTag("sensors_0", "room/1", 0, 10).stream().map(StoredRecord::offset).toList());
        assertEquals(List.of(0L), adapter.readByTag("sensors_0", "hot", 0, 10).stream().map(StoredRecord::offset).toList());
        assertEquals(List.of(), adapter.readByTag("sensors_0", "room", 0, 10));
    }

    @Test
    void offsetForTimestampFindsTheFirstRecordAtOrAfterIt() {
        long[] timestamps = {100, 300, 200, 400, 400};
        for (long ts : timestamps) {
            adapter.write("sensors_0", record(null, "v", ts));
        }
        assertEquals(0, adapter.offsetForTimestamp("sensors_0", 50));
        assertEquals(1, adapter.offsetForTimestamp("sensors_0", 101));
        assertEquals(1, adapter.offsetForTimestamp("sensors_0", 200));
        assertEquals(3, adapter.offsetForTimestamp("sensors_0", 301));
        assertEquals(5, adapter.offsetForTimestamp("sensors_0", 401), "none: the end offset");
        assertEquals(0, adapter.offsetForTimestamp("sensors_0", -2));
        assertEquals(5, adapter.offsetForTimestamp("sensors_0", -1));
    }

    @Test
    void errorsNameTheShardAndTheOffset() {
        UnknownShardException unknown = assertThrows(UnknownShardException.class,
                () -> adapter.write("nope_0", record(null, "v", 1)));
        assertEquals("nope_0", unknown.shard());
        assertTrue(unknown.getMessage().contains("nope_0"));
        assertThrows(UnknownShardException.class, () -> adapter.readByOffset("nope_0", 0, 1, 1));
        assertThrows(UnknownShardException.class, () -> adapter.deleteShard("nope_0"));
        assertThrows(UnknownShardException.class, () -> adapter.commitOffset("g", "nope_0", 0));

        ShardExistsException exists = assertThrows(ShardExistsException.class, () -> adapter.createShard("sensors_0", settings()));
        assertTrue(exists.getMessage().contains("sensors_0"));

        adapter.write("sensors_0", record(null, "v", 1));
        OffsetOutOfRangeException range = assertThrows(OffsetOutOfRangeException.class,
                () -> adapter.readByOffset("sensors_0", 7, 1, 100));
        assertEquals("sensors_0", range.shard());
        assertEquals(7, range.offset());
        assertTrue(range.getMessage().contains("sensors_0") && range.getMessage().contains("7"), range.getMessage());
        assertThrows(OffsetOutOfRangeException.class, () -> adapter.commitOffset("g", "sensors_0", 2));
    }

    @Test
    void deleteRecordsBeforeMovesTheStartOffset() {
        for (int i = 0; i < 10; i++) {
            adapter.write("sensors_0", record(null, "v" + i, i));
        }
        adapter.deleteRecordsBefore("sensors_0", 6);
        assertEquals(6, adapter.startOffset("sensors_0"));
        assertEquals(6, adapter.readByOffset("sensors_0", 6, 100, 1 << 20).get(0).offset());
        assertThrows(OffsetOutOfRangeException.class, () -> adapter.readByOffset("sensors_0", 5, 1, 100));
        assertEquals(6, adapter.offsetForTimestamp("sensors_0", 0));
    }

    @Test
    void committedGroupOffsetsAreDurableAcrossReopen() {
        for (int i = 0; i < 5; i++) {
            adapter.write("sensors_0", record(null, "v", i));
        }
        assertEquals(OptionalLong.empty(), adapter.groupOffset("readers", "sensors_0"));
        adapter.commitOffset("readers", "sensors_0", 3);
        adapter.commitOffset("readers", "sensors_0", 4);
        adapter.commitOffset("audit", "sensors_0", 1);
        assertEquals(OptionalLong.of(4), adapter.groupOffset("readers", "sensors_0"));
        reopen();
        assertEquals(OptionalLong.of(4), adapter.groupOffset("readers", "sensors_0"));
        assertEquals(OptionalLong.of(1), adapter.groupOffset("audit", "sensors_0"));
        assertEquals(List.of("audit", "readers"), new ArrayList<>(adapter.groups()));
    }

    @Test
    void shardsAndTheirSettingsSurviveReopen() {
        adapter.createShard("plant/line 3_0", settings());
        reopen();
        assertEquals(List.of("plant/line 3_0", "sensors_0"), new ArrayList<>(adapter.shards()));
        assertEquals(settings(), adapter.shardSettings("plant/line 3_0"));
        assertEquals(0, adapter.write("plant/line 3_0", record(null, "v", 1)));
    }

    @Test
    void deletingAShardRemovesItsRecordsAndGroupOffsets() {
        adapter.write("sensors_0", record(null, "v", 1));
        adapter.commitOffset("readers", "sensors_0", 1);
        adapter.deleteShard("sensors_0");
        assertFalse(adapter.shardExists("sensors_0"));
        reopen();
        assertFalse(adapter.shardExists("sensors_0"));
        adapter.createShard("sensors_0", settings());
        assertEquals(0, adapter.endOffset("sensors_0"));
        assertEquals(OptionalLong.empty(), adapter.groupOffset("readers", "sensors_0"));
        assertTrue(adapter.groups().isEmpty(), "a group without offsets is not listed");
    }

    @Test
    void outOfRangeOffsetsAreRefusedOnBothSides() {
        adapter.batchWrite("sensors_0", List.of(record(null, "a", 1), record(null, "b", 2), record(null, "c", 3)));
        adapter.deleteRecordsBefore("sensors_0", 1);
        assertThrows(OffsetOutOfRangeException.class, () -> adapter.readByOffset("sensors_0", 0, 1, 100));
        assertThrows(OffsetOutOfRangeException.class, () -> adapter.readByOffset("sensors_0", 4, 1, 100));
        assertThrows(OffsetOutOfRangeException.class, () -> adapter.readByOffset("sensors_0", -1, 1, 100));
        assertThrows(OffsetOutOfRangeException.class, () -> adapter.deleteRecordsBefore("sensors_0", 4));
        assertEquals(List.of(), adapter.readByOffset("sensors_0", 3, 1, 100), "the end offset reads nothing");
        assertEquals(List.of(), adapter.readByKey("sensors_0", bytes("a"), 99, 10));
    }

    @Test
    void readsByKeyAndTagSkipTrimmedRecords() {
        for (int i = 0; i < 10; i++) {
            adapter.write("sensors_0", record("k" + (i % 2), "v" + i, i, "t" + (i % 3)));
        }
        adapter.deleteRecordsBefore("sensors_0", 5);
        assertEquals(List.of(5L, 7L, 9L), offsets(adapter.readByKey("sensors_0", bytes("k1"), 0, 10)));
        assertEquals(List.of(6L, 9L), offsets(adapter.readByTag("sensors_0", "t0", 0, 10)));
        assertEquals(List.of(9L), offsets(adapter.readByTag("sensors_0", "t0", 7, 10)));
    }

    static List<Long> offsets(List<StoredRecord> stored) {
        return stored.stream().map(StoredRecord::offset).toList();
    }

    @Test
    void retentionByBytesDropsTheOldestRecords() {
        adapter.createShard("small_0", settings(LogSettings.builder().segmentBytes(1024)
                .retentionMs(LogSettings.UNLIMITED).retentionBytes(2048).build()));
        for (int i = 0; i < 100; i++) {
            adapter.write("small_0", record(null, "x".repeat(100) + i, i));
        }
        maintain();
        long start = adapter.startOffset("small_0");
        assertTrue(start >= 50 && start < 100, "start offset " + start);
        assertEquals(100, adapter.endOffset("small_0"));
        assertThrows(OffsetOutOfRangeException.class, () -> adapter.readByOffset("small_0", 0, 1, 100));
        assertEquals(start, adapter.readByOffset("small_0", start, 1, 1 << 20).get(0).offset());
        assertEquals(99, adapter.readByOffset("small_0", 99, 1, 1 << 20).get(0).offset());
    }

    @Test
    void retentionByTimeDropsRecordsOlderThanRetentionMs() {
        adapter.createShard("aged_0", settings(LogSettings.builder().segmentBytes(1024).retentionMs(60_000).build()));
        long now = System.currentTimeMillis();
        for (int i = 0; i < 30; i++) {
            adapter.write("aged_0", record(null, "x".repeat(100), 1000 + i));
        }
        for (int i = 0; i < 30; i++) {
            adapter.write("aged_0", record(null, "y".repeat(100), now + i));
        }
        maintain();
        long start = adapter.startOffset("aged_0");
        assertTrue(start >= 16 && start <= 30, "start offset " + start);
        assertEquals(30, adapter.offsetForTimestamp("aged_0", now));
        assertEquals(List.of(30L), offsets(adapter.readByOffset("aged_0", 30, 1, 1 << 20)));
    }

    @Test
    void compactionKeepsTheLatestRecordPerKeyAndDropsOldTombstones() {
        adapter.createShard("latest_0", settings(LogSettings.builder().segmentBytes(1024).segmentMs(1)
                .retentionMs(LogSettings.UNLIMITED).flush(FlushPolicy.ALWAYS).cleanupPolicy(CleanupPolicy.COMPACT)
                .deleteRetentionMs(1000).minCleanableDirtyRatio(0.01).build()));
        long now = System.currentTimeMillis();
        adapter.write("latest_0", record("a", "1", 1));
        adapter.write("latest_0", record("b", "2", 2));
        adapter.write("latest_0", record("a", "3", 3));
        adapter.write("latest_0", record("b", null, 4));
        for (int i = 0; i < 60; i++) {
            adapter.write("latest_0", record("filler" + (i % 5), "x".repeat(100), now + i));
        }
        assertThrows(IllegalArgumentException.class, () -> adapter.write("latest_0", record(null, "no key", now)));
        Eventually.await(() -> {
            maintain();
            return adapter.readByKey("latest_0", bytes("a"), 0, 10).size() == 1
                    && adapter.readByKey("latest_0", bytes("b"), 0, 10).isEmpty();
        }, "compaction keeps one 'a' and drops the tombstone of 'b'");
        assertEquals(List.of(2L), offsets(adapter.readByKey("latest_0", bytes("a"), 0, 10)));
        assertEquals(record("a", "3", 3), adapter.readByOffset("latest_0", 0, 1, 1 << 20).get(0).record());
        assertEquals(64, adapter.endOffset("latest_0"), "compaction keeps offsets");
        List<StoredRecord> filler = adapter.readByKey("latest_0", bytes("filler4"), 0, 100);
        assertEquals(63, filler.get(filler.size() - 1).offset(), "the latest version of a key survives");
    }

    @Test
    void aRestartKeepsOffsetsGoingAndDurableEnginesKeepTheRecords() {
        adapter.batchWrite("sensors_0", List.of(record("a", "1", 1, "t"), record("b", "2", 2)));
        reopen();
        assertEquals(2, adapter.endOffset("sensors_0"));
        if (keepsRecords()) {
            assertEquals(0, adapter.startOffset("sensors_0"));
            assertEquals(record("b", "2", 2), adapter.readByOffset("sensors_0", 1, 1, 100).get(0).record());
            assertEquals(List.of(0L), offsets(adapter.readByTag("sensors_0", "t", 0, 10)));
            assertEquals(1, adapter.offsetForTimestamp("sensors_0", 2));
        } else {
            assertEquals(2, adapter.startOffset("sensors_0"), "a memory shard comes back empty");
            assertEquals(List.of(), adapter.readByOffset("sensors_0", 2, 10, 100));
        }
        assertEquals(2, adapter.write("sensors_0", record("c", "3", 3)), "offsets are never reused");
    }
}
