package io.sluice.storage.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.sluice.storage.Record;
import io.sluice.storage.StoredRecord;

class RecordSlotsTest {
    private static final int CHUNK = 1 << RecordSlots.CHUNK_BITS;
    private final RecordSlots slots = new RecordSlots();

    private StoredRecord put(long offset) {
        StoredRecord record = new StoredRecord(offset, new Record(null, new byte[1], 0, List.of()));
        slots.put(record);
        return record;
    }

    @Test
    void recordsAreFoundByOffsetFromAnyFirstOffset() {
        long first = 3L * CHUNK + 7;
        StoredRecord a = put(first);
        StoredRecord b = put(first + CHUNK);
        assertSame(a, slots.get(first));
        assertSame(b, slots.get(first + CHUNK));
        assertNull(slots.get(first + 1));
        assertNull(slots.get(first - 1));
        assertNull(slots.get(100L * CHUNK));
    }

    @Test
    void nextLiveSkipsDroppedRecordsAndFreedChunks() {
        for (long offset = 0; offset < 3L * CHUNK; offset++) {
            put(offset);
        }
        for (long offset = 1; offset < 2L * CHUNK + 5; offset++) {
            slots.remove(offset);
        }
        assertEquals(0, slots.nextLive(0, 3L * CHUNK));
        assertEquals(2L * CHUNK + 5, slots.nextLive(1, 3L * CHUNK));
        assertEquals(100, slots.nextLive(1, 100));
        assertNull(slots.remove(7));
        slots.remove(0);
        assertNull(slots.get(0));
        assertEquals(2L * CHUNK + 5, slots.nextLive(0, 3L * CHUNK));
    }

    @Test
    void aChunkFreedWhileTheShardStillWritesIntoItIsMadeAgain() {
        put(0);
        slots.remove(0);
        StoredRecord next = put(1);
        assertSame(next, slots.get(1));
        assertEquals(1, slots.nextLive(0, 2));
    }
}
