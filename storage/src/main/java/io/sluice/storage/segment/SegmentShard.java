package io.sluice.storage.segment;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import io.sluice.storage.Log;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.Record;
import io.sluice.storage.RecordFlyweight;
import io.sluice.storage.Shard;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StoredRecord;

/**
 * The {@code segment} engine: a shard stored as a {@link SegmentLog} in the shard's directory,
 * written through a {@link SharedAppender} so any thread may write and writes return once durable
 * under the flush policy (group commit for {@code always}); reads by key and tag go through a
 * {@link SegmentTermIndex}.
 */
public final class SegmentShard implements Shard {
    private final String name;
    private final ShardSettings settings;
    private final SegmentLog log;
    private final SharedAppender appender;
    private final SegmentTermIndex terms;

    private SegmentShard(String name, ShardSettings settings, SegmentLog log) {
        this.name = name;
        this.settings = settings;
        this.log = log;
        this.appender = new SharedAppender(log);
        this.terms = new SegmentTermIndex(log);
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
    public int readByOffset(long offset, int maxRecords, int maxBytes, Consumer<RecordFlyweight> visitor) {
        return log.read(offset, maxRecords, maxBytes, visitor);
    }

    @Override
    public List<StoredRecord> readByKey(byte[] key, long fromOffset, int maxRecords) {
        return terms.find(SegmentTermIndex.KEY, key, fromOffset, maxRecords,
                record -> record.key() != null && Arrays.equals(record.key(), key));
    }

    @Override
    public List<StoredRecord> readByTag(String tag, long fromOffset, int maxRecords) {
        return terms.find(SegmentTermIndex.TAG, Shard.tagBytes(tag), fromOffset, maxRecords,
                record -> record.tags().contains(tag));
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
        terms.close();
        log.close();
    }

    @Override
    public String toString() {
        return "SegmentShard[" + name + ", " + log + "]";
    }
}
