package io.sluice.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every engine behind the storage adapter must do alike; one subclass per engine runs it.
 */
abstract class StorageAdapterContract {
    @TempDir
    Path dir;
    StorageAdapter adapter;

    /** The settings of the shards the contract creates. */
    abstract ShardSettings settings();

    @BeforeEach
    void open() {
        adapter = StorageAdapter.open(dir);
        adapter.createShard("sensors_0", settings());
    }

    @AfterEach
    void close() {
        if (adapter != null) {
            adapter.close();
        }
    }

    void reopen() {
        adapter.close();
        adapter = StorageAdapter.open(dir);
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
        if (settings().engine() == Engine.SEGMENT) {
            assertEquals(List.of(withBoth, plain), records(adapter.readByOffset("sensors_0", 0, 10, 1 << 20)));
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
}
