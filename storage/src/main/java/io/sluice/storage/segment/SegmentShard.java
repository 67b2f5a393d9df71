package io.sluice.storage.segment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.sluice.storage.Log;
import io.sluice.storage.LogCursor;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.Record;
import io.sluice.storage.Shard;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StoredRecord;

/**
 * The {@code segment} engine: a shard stored as a {@link SegmentLog} in the shard's directory,
 * written through a {@link SharedAppender} so any thread may write and writes return once durable
 * under the flush policy (group commit for {@code always}).
 */
public final class SegmentShard implements Shard {
    private final String name;
    private final ShardSettings settings;
    private final SegmentLog log;
    private final SharedAppender appender;

    private SegmentShard(String name, ShardSettings settings, SegmentLog log) {
        this.name = name;
        this.settings = settings;
        this.log = log;
        this.appender = new SharedAppender(log);
    }

    /** Opens (creating or recovering) the shard's log in {@code dir}, on the adapter's background threads. */
    public static SegmentShard open(String name, ShardSettings settings, Path dir, LogScheduler scheduler) {
        return new SegmentShard(name, settings, SegmentLog.open(dir, name, settings.log(), scheduler));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public ShardSettings settings() {
        return settings;
    }

    /** The log behind the shard. */
    public Log log() {
        return log;
    }

    @Override
    public long write(Record record) {
        return appender.append(record);
    }

    @Override
    public long[] batchWrite(List<Record> records) {
        return appender.append(records);
    }

    @Override
    public List<StoredRecord> readByOffset(long offset, int maxRecords, int maxBytes) {
        return log.read(offset, maxRecords, maxBytes);
    }

    @Override
    public List<StoredRecord> readByKey(byte[] key, long fromOffset, int maxRecords) {
        List<StoredRecord> found = new ArrayList<>();
        try (LogCursor cursor = log.cursor(clamp(fromOffset))) {
            while (found.size() < maxRecords && cursor.next()) {
                if (cursor.hasKey() && cursor.keyEquals(key)) {
                    found.add(cursor.toStoredRecord());
                }
            }
        }
        return found;
    }

    @Override
    public List<StoredRecord> readByTag(String tag, long fromOffset, int maxRecords) {
        byte[] utf8 = Shard.tagBytes(tag);
        List<StoredRecord> found = new ArrayList<>();
        try (LogCursor cursor = log.cursor(clamp(fromOffset))) {
            while (found.size() < maxRecords && cursor.next()) {
                if (cursor.hasTag(utf8)) {
                    found.add(cursor.toStoredRecord());
                }
            }
        }
        return found;
    }

    /** Key and tag scans start at the start offset at the earliest and find nothing past the end. */
    private long clamp(long fromOffset) {
        return Math.min(Math.max(fromOffset, log.logStartOffset()), log.highWatermark());
    }

    @Override
    public long offsetForTimestamp(long timestamp) {
        return log.offsetForTimestamp(timestamp);
    }

    @Override
    public long startOffset() {
        return log.logStartOffset();
    }

    @Override
    public long endOffset() {
        return log.highWatermark();
    }

    @Override
    public void deleteRecordsBefore(long offset) {
        log.deleteRecordsBefore(offset);
    }

    @Override
    public void close() {
        log.close();
    }

    @Override
    public String toString() {
        return "SegmentShard[" + name + ", " + log + "]";
    }
}
