package io.sluice.storage.memory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.LogSettings;
import io.sluice.storage.OffsetOutOfRangeException;
import io.sluice.storage.Record;
import io.sluice.storage.Shard;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StoredRecord;

/**
 * The {@code memory} engine: records in a concurrent sorted map by offset, gone after a restart.
 * Writers serialise on the shard's monitor; readers read the map without locks and stop at the end
 * offset, which is published after the record. Honours {@code retention_bytes} and
 * {@code retention_ms} (checked on each write, by record timestamp) and, for
 * {@code cleanup_policy = compact}, keeps only the latest record per key at once.
 */
public final class MemoryShard implements Shard {
    private final String name;
    private final ShardSettings settings;
    private final ConcurrentSkipListMap<Long, StoredRecord> records = new ConcurrentSkipListMap<>();
    private final Map<ByteBuffer, Long> latestByKey = new HashMap<>();
    private volatile long startOffset;
    private volatile long endOffset;
    private long bytes;

    public MemoryShard(String name, ShardSettings settings) {
        this.name = name;
        this.settings = settings;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public ShardSettings settings() {
        return settings;
    }

    @Override
    public long write(Record record) {
        return batchWrite(List.of(record))[0];
    }

    @Override
    public synchronized long[] batchWrite(List<Record> batch) {
        boolean compact = settings.log().cleanupPolicy() == CleanupPolicy.COMPACT;
        for (Record record : batch) {
            if (compact && record.key() == null) {
                throw new IllegalArgumentException("shard '" + name + "' is compacted (cleanup_policy = compact): a record needs a key");
            }
        }
        long[] offsets = new long[batch.size()];
        long next = endOffset;
        for (int i = 0; i < offsets.length; i++) {
            Record record = batch.get(i);
            offsets[i] = next;
            records.put(next, new StoredRecord(next, record));
            bytes += record.payloadBytes();
            if (compact) {
                supersede(record, next);
            }
            next++;
        }
        endOffset = next;
        if (!compact && !batch.isEmpty()) {
            enforceRetention(System.currentTimeMillis());
        }
        return offsets;
    }

    private void supersede(Record record, long offset) {
        Long previous = latestByKey.put(ByteBuffer.wrap(record.key()), offset);
        if (previous != null) {
            StoredRecord old = records.remove(previous);
            if (old != null) {
                bytes -= old.record().payloadBytes();
            }
        }
    }

    private void enforceRetention(long nowMs) {
        LogSettings log = settings.log();
        while (!records.isEmpty()) {
            StoredRecord head = records.firstEntry().getValue();
            boolean expired = log.retentionMs() != LogSettings.UNLIMITED && nowMs - head.timestamp() > log.retentionMs();
            boolean oversize = log.retentionBytes() != LogSettings.UNLIMITED && bytes > log.retentionBytes();
            if (!expired && !oversize) {
                return;
            }
            records.pollFirstEntry();
            bytes -= head.record().payloadBytes();
            startOffset = head.offset() + 1;
        }
    }

    @Override
    public List<StoredRecord> readByOffset(long offset, int maxRecords, int maxBytes) {
        long end = endOffset;
        long start = startOffset;
        if (offset < start || offset > end) {
            throw new OffsetOutOfRangeException(name, offset, start, end);
        }
        List<StoredRecord> out = new ArrayList<>();
        long taken = 0;
        for (StoredRecord record : records.subMap(offset, end).values()) {
            int size = record.record().payloadBytes();
            if (out.size() >= maxRecords || (!out.isEmpty() && taken + size > maxBytes)) {
                break;
            }
            out.add(record);
            taken += size;
        }
        return out;
    }

    @Override
    public long offsetForTimestamp(long timestamp) {
        long end = endOffset;
        if (timestamp == -2) {
            return startOffset;
        }
        if (timestamp == -1) {
            return end;
        }
        if (timestamp < 0) {
            throw new IllegalArgumentException("shard '" + name + "': timestamp must be >= 0, -1 (latest) or -2 (earliest), was "
                    + timestamp);
        }
        for (StoredRecord record : records.subMap(startOffset, end).values()) {
            if (record.timestamp() >= timestamp) {
                return record.offset();
            }
        }
        return end;
    }

    @Override
    public long startOffset() {
        return startOffset;
    }

    @Override
    public long endOffset() {
        return endOffset;
    }

    @Override
    public synchronized void deleteRecordsBefore(long offset) {
        if (offset < 0 || offset > endOffset) {
            throw new OffsetOutOfRangeException(name, offset, startOffset, endOffset);
        }
        if (offset <= startOffset) {
            return;
        }
        startOffset = offset;
        while (!records.isEmpty() && records.firstKey() < offset) {
            bytes -= records.pollFirstEntry().getValue().record().payloadBytes();
        }
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "MemoryShard[" + name + ", offsets " + startOffset + ".." + (endOffset - 1) + "]";
    }
}
