package io.sluice.storage.memory;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.LogSettings;
import io.sluice.storage.OffsetOutOfRangeException;
import io.sluice.storage.Record;
import io.sluice.storage.Shard;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StoredRecord;

/**
 * The {@code memory} engine: records in {@link RecordSlots} by offset, gone after a restart, with a
 * {@link TermIndex} per key and per tag for reads by key and tag, so the work of a read does not
 * depend on the shard's size. Offsets continue after a restart ({@link NextOffsetFile}), so no
 * offset is ever given out twice. Writers serialise on the shard's monitor; readers read without
 * locks and stop at the end offset, which is published after the record. Honours {@code retention_bytes} and {@code retention_ms} (checked on
 * each write, by record timestamp) and, for {@code cleanup_policy = compact}, keeps only the latest
 * record per key at once.
 */
public final class MemoryShard implements Shard, LogScheduler.Maintained {
    /** Offsets reserved ahead of the end: what a crash may skip, and how often the ceiling is written. */
    static final long OFFSET_RESERVATION = 1 << 16;

    private final String name;
    private final ShardSettings settings;
    private final RecordSlots records = new RecordSlots();
    private final Map<ByteBuffer, Long> latestByKey = new HashMap<>();
    private final TermIndex<ByteBuffer> keys = new TermIndex<>(this::holds);
    private final TermIndex<String> tags = new TermIndex<>(this::holds);
    private final NextOffsetFile nextOffsetFile;
    private final LogScheduler scheduler;
    private volatile long startOffset;
    private volatile long endOffset;
    private long reservedOffset;
    private long bytes;

    /**
     * Opens the shard empty, at the offset {@code dir} says its last run stopped at; the scheduler's
     * maintenance passes apply retention between writes and expire tombstones.
     */
    public MemoryShard(String name, ShardSettings settings, Path dir, LogScheduler scheduler) {
        this.name = name;
        this.settings = settings;
        this.scheduler = scheduler;
        this.nextOffsetFile = new NextOffsetFile(dir);
        this.reservedOffset = nextOffsetFile.read();
        this.startOffset = reservedOffset;
        this.endOffset = reservedOffset;
        scheduler.register(this);
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
        reserve(next + offsets.length);
        for (int i = 0; i < offsets.length; i++) {
            Record record = batch.get(i);
            offsets[i] = next;
            records.put(new StoredRecord(next, record));
            index(next, record);
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

    /** Offsets up to {@code needed} may be given out once the stored ceiling covers them, a block ahead. */
    private void reserve(long needed) {
        if (needed > reservedOffset) {
            reservedOffset = needed + OFFSET_RESERVATION;
            nextOffsetFile.write(reservedOffset);
        }
    }

    private void index(long offset, Record record) {
        if (record.key() != null) {
            keys.add(ByteBuffer.wrap(record.key()), offset);
        }
        for (String tag : record.tags()) {
            tags.add(tag, offset);
        }
    }

    /** Removes a record with its index entries; returns it, or null when it was gone already. */
    private StoredRecord drop(long offset) {
        StoredRecord old = records.remove(offset);
        if (old != null) {
            bytes -= old.record().payloadBytes();
            if (old.key() != null) {
                keys.remove(ByteBuffer.wrap(old.key()), offset);
            }
            for (String tag : old.tags()) {
                tags.remove(tag, offset);
            }
        }
        return old;
    }

    private void supersede(Record record, long offset) {
        Long previous = latestByKey.put(ByteBuffer.wrap(record.key()), offset);
        if (previous != null) {
            drop(previous);
        }
    }

    /** Retention, or for a compacted shard the tombstones older than {@code delete_retention_ms}. */
    @Override
    public synchronized void maintain(long nowMs) {
        if (settings.log().cleanupPolicy() != CleanupPolicy.COMPACT) {
            enforceRetention(nowMs);
            return;
        }
        long cutoff = nowMs - settings.log().deleteRetentionMs();
        latestByKey.values().removeIf(offset -> {
            StoredRecord latest = records.get(offset);
            boolean expired = latest == null || (latest.record().isTombstone() && latest.timestamp() < cutoff);
            if (expired) {
                drop(offset);
            }
            return expired;
        });
    }

    private boolean holds(long offset) {
        return records.get(offset) != null;
    }

    private void enforceRetention(long nowMs) {
        LogSettings log = settings.log();
        long end = endOffset;
        for (long first = records.nextLive(startOffset, end); first < end; first = records.nextLive(first + 1, end)) {
            StoredRecord head = records.get(first);
            boolean expired = log.retentionMs() != LogSettings.UNLIMITED && nowMs - head.timestamp() > log.retentionMs();
            boolean oversize = log.retentionBytes() != LogSettings.UNLIMITED && bytes > log.retentionBytes();
            if (!expired && !oversize) {
                return;
            }
            drop(head.offset());
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
        for (long at = records.nextLive(offset, end); at < end; at = records.nextLive(at + 1, end)) {
            StoredRecord record = records.get(at);
            if (record == null) {
                continue;
            }
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
    public List<StoredRecord> readByKey(byte[] key, long fromOffset, int maxRecords) {
        return readByTerm(keys, ByteBuffer.wrap(key), fromOffset, maxRecords);
    }

    @Override
    public List<StoredRecord> readByTag(String tag, long fromOffset, int maxRecords) {
        return readByTerm(tags, tag, fromOffset, maxRecords);
    }

    private <T> List<StoredRecord> readByTerm(TermIndex<T> index, T term, long fromOffset, int maxRecords) {
        long end = endOffset;
        List<StoredRecord> found = new ArrayList<>();
        index.forEachFrom(term, Math.max(fromOffset, startOffset), offset -> {
            if (offset >= end || found.size() >= maxRecords) {
                return false;
            }
            StoredRecord record = records.get(offset);
            if (record != null) {
                found.add(record);
            }
            return true;
        });
        return found;
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
        for (long at = records.nextLive(startOffset, end); at < end; at = records.nextLive(at + 1, end)) {
            StoredRecord record = records.get(at);
            if (record != null && record.timestamp() >= timestamp) {
                return at;
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
        long from = startOffset;
        startOffset = offset;
        for (long at = records.nextLive(from, offset); at < offset; at = records.nextLive(at + 1, offset)) {
            drop(at);
        }
    }

    /** Stores the exact end offset, so the next run continues right after the last record. */
    @Override
    public synchronized void close() {
        scheduler.unregister(this);
        nextOffsetFile.write(endOffset);
        reservedOffset = endOffset;
    }

    @Override
    public String toString() {
        return "MemoryShard[" + name + ", offsets " + startOffset + ".." + (endOffset - 1) + "]";
    }
}
