package io.sluice.storage.rocksdb;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.LogSettings;
import io.sluice.storage.OffsetOutOfRangeException;
import io.sluice.storage.Record;
import io.sluice.storage.Shard;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageException;
import io.sluice.storage.StoredRecord;
import io.sluice.storage.segment.RecordCodec;

/**
 * The {@code rocksdb} engine: one shard as a column family of the adapter's {@link RocksStore},
 * keyed by big-endian offset, with its key, tag and time index entries and its {@link ShardState}
 * written in the same {@code WriteBatch} as the records, so they never disagree after a crash.
 *
 * <h2>Durability</h2>
 * Every write goes through RocksDB's write-ahead log before it returns, so a killed process loses
 * nothing acknowledged. {@code flush = always} syncs the log on every write (concurrent writes to
 * different shards share the sync); {@code interval} syncs it every {@code flush_interval_ms} and
 * after {@code flush_messages} records; {@code none} leaves it to the operating system. Writes to
 * one shard are serialised, so offsets are written in order and a crash leaves no gap.
 *
 * <h2>Trimming, retention and compaction</h2>
 * {@link #deleteRecordsBefore} and retention move {@code start} (persisted first), then a purge
 * deletes the records below it with their index entries. Retention ({@code cleanup_policy =
 * delete}) and compaction ({@code compact}: every record but the latest of its key goes, and a
 * latest tombstone older than {@code delete_retention_ms}) run in the adapter's maintenance pass.
 *
 * <h2>Threads</h2>
 * Any thread may call anything. {@code writeLock} orders writers and state changes; the
 * maintenance lock allows one purge, retention or compaction pass at a time; the read side of
 * {@code handles} is held while native handles are used and its write side by {@link #close}.
 */
public final class RocksShard implements Shard, LogScheduler.Maintained {
    private static final byte[] EMPTY = new byte[0];
    private static final int MAINTENANCE_BATCH = 10_000;

    /** Work on native handles that RocksDB may fail. */
    private interface RocksWork<T> {
        T run() throws RocksDBException;
    }

    private final RocksStore store;
    private final RocksDB db;
    private final String name;
    private final int id;
    private final ColumnFamilyHandle records;
    private final ShardSettings settings;
    private final LogScheduler scheduler;
    private final WriteOptions writeOptions;
    private final WriteOptions syncWrite;
    private final ScheduledFuture<?> intervalSync;
    private final ReentrantReadWriteLock handles = new ReentrantReadWriteLock();
    private final ReentrantLock maintenanceLock = new ReentrantLock();
    private final Object writeLock = new Object();
    private boolean closed;
    private volatile long start;
    private volatile long end;
    private long purged;
    private long bytes;
    private long maxTimestamp;
    private long unsynced;
    private volatile long dirty = 1;

    RocksShard(RocksStore store, String name, int id, ColumnFamilyHandle records, ShardSettings settings,
               ShardState state, LogScheduler scheduler) {
        this.store = store;
        this.db = store.db();
        this.name = name;
        this.id = id;
        this.records = records;
        this.settings = settings;
        this.scheduler = scheduler;
        this.start = state.start();
        this.purged = state.purged();
        this.end = state.end();
        this.bytes = state.bytes();
        this.maxTimestamp = state.maxTimestamp();
        LogSettings log = settings.log();
        this.writeOptions = new WriteOptions().setSync(log.flush() == FlushPolicy.ALWAYS);
        this.syncWrite = new WriteOptions().setSync(true);
        this.intervalSync = log.flush() == FlushPolicy.INTERVAL
                ? scheduler.flushEvery(name, log.flushIntervalMs(), this::syncWal) : null;
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
    public long[] batchWrite(List<Record> batch) {
        if (settings.log().cleanupPolicy() == CleanupPolicy.COMPACT) {
            for (Record record : batch) {
                if (record.key() == null) {
                    throw new IllegalArgumentException("shard '" + name
                            + "' is compacted (cleanup_policy = compact): a record needs a key");
                }
            }
        }
        long[] offsets = guarded("writing to", () -> {
            synchronized (writeLock) {
                return append(batch);
            }
        });
        afterWrite(batch.size());
        return offsets;
    }

    /** Writes the batch with its index entries and the new state; publishes the end offset after. */
    private long[] append(List<Record> batch) throws RocksDBException {
        long[] offsets = new long[batch.size()];
        if (offsets.length == 0) {
            return offsets;
        }
        long next = end;
        long newBytes = bytes;
        long newMax = maxTimestamp;
        try (WriteBatch write = new WriteBatch()) {
            for (int i = 0; i < offsets.length; i++) {
                Record record = batch.get(i);
                byte[] value = RecordCodec.encode(record);
                write.put(records, RocksKeys.offsetKey(next), value);
                if (record.key() != null) {
                    write.put(store.keyIndex(), RocksKeys.termKey(id, record.key(), next), EMPTY);
                }
                for (String tag : record.tags()) {
                    write.put(store.tagIndex(), RocksKeys.termKey(id, Shard.tagBytes(tag), next), EMPTY);
                }
                if (record.timestamp() > newMax) {
                    newMax = record.timestamp();
                    write.put(store.timeIndex(), RocksKeys.timeKey(id, newMax), RocksKeys.offsetKey(next));
                }
                newBytes += value.length;
                offsets[i] = next++;
            }
            write.put(store.metadata(), RocksKeys.stateKey(id), new ShardState(start, purged, next, newBytes, newMax).toBytes());
            db.write(writeOptions, write);
        }
        bytes = newBytes;
        maxTimestamp = newMax;
        end = next;
        dirty = dirty + offsets.length;
        return offsets;
    }

    /** {@code flush_messages}: a sync on a flusher thread once that many records were written. */
    private void afterWrite(int count) {
        LogSettings log = settings.log();
        if (log.flush() != FlushPolicy.INTERVAL || log.flushMessages() == Long.MAX_VALUE) {
            return;
        }
        boolean due;
        synchronized (writeLock) {
            unsynced += count;
            due = unsynced >= log.flushMessages();
            if (due) {
                unsynced = 0;
            }
        }
        if (due) {
            scheduler.flushSoon(this::syncWal);
        }
    }

    private void syncWal() {
        handles.readLock().lock();
        try {
            if (!closed) {
                store.syncWal();
            }
        } finally {
            handles.readLock().unlock();
        }
    }

    @Override
    public List<StoredRecord> readByOffset(long offset, int maxRecords, int maxBytes) {
        long first = start;
        long last = end;
        if (offset < first || offset > last) {
            throw new OffsetOutOfRangeException(name, offset, first, last);
        }
        return guarded("reading", () -> {
            List<StoredRecord> out = new ArrayList<>();
            long taken = 0;
            try (RocksIterator it = db.newIterator(records)) {
                for (it.seek(RocksKeys.offsetKey(offset)); it.isValid() && out.size() < maxRecords; it.next()) {
                    long at = RocksKeys.readLong(it.key());
                    if (at >= last) {
                        break;
                    }
                    Record record = decode(at, it.value());
                    int size = record.payloadBytes();
                    if (!out.isEmpty() && taken + size > maxBytes) {
                        break;
                    }
                    out.add(new StoredRecord(at, record));
                    taken += size;
                }
                it.status();
            }
            return out;
        });
    }

    @Override
    public List<StoredRecord> readByKey(byte[] key, long fromOffset, int maxRecords) {
        return readByTerm(store.keyIndex(), key, fromOffset, maxRecords);
    }

    @Override
    public List<StoredRecord> readByTag(String tag, long fromOffset, int maxRecords) {
        return readByTerm(store.tagIndex(), Shard.tagBytes(tag), fromOffset, maxRecords);
    }

    /**
     * Walks the index from (term, from) to (term, end), an upper bound that keeps RocksDB from
     * reading past the term's entries, then fetches the records it lists with one {@code multiGet}
     * (sorted, batched block reads); stale entries, whose record is gone, are skipped. Trimming
     * can leave more stale entries than fit in one pass, so it repeats from after the last one.
     */
    private List<StoredRecord> readByTerm(ColumnFamilyHandle index, byte[] term, long fromOffset, int maxRecords) {
        long last = end;
        return guarded("reading the index of", () -> {
            List<StoredRecord> found = new ArrayList<>();
            for (long from = Math.max(fromOffset, start); from < last && found.size() < maxRecords; ) {
                List<Long> offsets = termOffsets(index, term, from, last, maxRecords - found.size());
                if (offsets.isEmpty()) {
                    break;
                }
                List<byte[]> keys = new ArrayList<>(offsets.size());
                offsets.forEach(at -> keys.add(RocksKeys.offsetKey(at)));
                List<byte[]> values = db.multiGetAsList(Collections.nCopies(keys.size(), records), keys);
                for (int i = 0; i < values.size(); i++) {
                    if (values.get(i) != null) {
                        found.add(new StoredRecord(offsets.get(i), decode(offsets.get(i), values.get(i))));
                    }
                }
                from = offsets.get(offsets.size() - 1) + 1;
            }
            return found;
        });
    }

    /** Up to {@code max} offsets in [from, last) the index lists for the term, ascending. */
    private List<Long> termOffsets(ColumnFamilyHandle index, byte[] term, long from, long last, int max)
            throws RocksDBException {
        List<Long> offsets = new ArrayList<>();
        try (Slice bound = new Slice(RocksKeys.termKey(id, term, last));
             ReadOptions options = new ReadOptions().setIterateUpperBound(bound);
             RocksIterator it = db.newIterator(index, options)) {
            for (it.seek(RocksKeys.termKey(id, term, from)); it.isValid() && offsets.size() < max; it.next()) {
                offsets.add(RocksKeys.trailingOffset(it.key()));
            }
            it.status();
        }
        return offsets;
    }

    /**
     * The time index gives the first offset whose running maximum timestamp reaches {@code timestamp},
     * which is the first record at or after it; records from there (or from the start, if that
     * offset was trimmed) are read until one qualifies, so the answer is exact with unordered
     * timestamps and after compaction.
     */
    @Override
    public long offsetForTimestamp(long timestamp) {
        if (timestamp == EARLIEST) {
            return start;
        }
        if (timestamp == LATEST) {
            return end;
        }
        if (timestamp < 0) {
            throw new IllegalArgumentException("shard '" + name
                    + "': timestamp must be >= 0, -1 (latest) or -2 (earliest), was " + timestamp);
        }
        return guarded("searching the time index of", () -> firstAtOrAfter(timestamp, start, end));
    }

    private static final long EARLIEST = -2;
    private static final long LATEST = -1;

    private long firstAtOrAfter(long timestamp, long first, long last) throws RocksDBException {
        long candidate;
        byte[] shardPrefix = RocksKeys.shardStart(id);
        try (RocksIterator it = db.newIterator(store.timeIndex())) {
            it.seek(RocksKeys.timeKey(id, timestamp));
            if (!it.isValid() || !RocksKeys.startsWith(it.key(), shardPrefix)) {
                it.status();
                return last;
            }
            candidate = RocksKeys.readLong(it.value());
        }
        try (RocksIterator it = db.newIterator(records)) {
            for (it.seek(RocksKeys.offsetKey(Math.max(candidate, first))); it.isValid(); it.next()) {
                long at = RocksKeys.readLong(it.key());
                if (at >= last) {
                    break;
                }
                if (decode(at, it.value()).timestamp() >= timestamp) {
                    return at;
                }
            }
            it.status();
        }
        return last;
    }

    @Override
    public long startOffset() {
        return start;
    }

    @Override
    public long endOffset() {
        return end;
    }

    @Override
    public void deleteRecordsBefore(long offset) {
        guarded("trimming", () -> {
            advanceStart(offset, true);
            maintenanceLock.lock();
            try {
                purge();
            } finally {
                maintenanceLock.unlock();
            }
            return null;
        });
    }

    /** Moves the start offset, durably; past the end is an error only for a caller's request. */
    private void advanceStart(long offset, boolean checkRange) throws RocksDBException {
        synchronized (writeLock) {
            if (checkRange && (offset < 0 || offset > end)) {
                throw new OffsetOutOfRangeException(name, offset, start, end);
            }
            if (offset <= start) {
                return;
            }
            start = Math.min(offset, end);
            db.put(store.metadata(), syncWrite, RocksKeys.stateKey(id), state().toBytes());
        }
    }

    private ShardState state() {
        return new ShardState(start, purged, end, bytes, maxTimestamp);
    }

    /** Deletes records below the start offset with their index entries, a batch at a time (maintenance lock held). */
    private void purge() throws RocksDBException {
        long target = start;
        while (purged < target) {
            try (WriteBatch batch = new WriteBatch(); RocksIterator it = db.newIterator(records)) {
                long removedBytes = 0;
                long upTo = target;
                int count = 0;
                for (it.seek(RocksKeys.offsetKey(purged)); it.isValid(); it.next()) {
                    long at = RocksKeys.readLong(it.key());
                    if (at >= target) {
                        break;
                    }
                    if (count == MAINTENANCE_BATCH) {
                        upTo = at;
                        break;
                    }
                    removedBytes += it.value().length;
                    deleteIndexEntries(batch, decode(at, it.value()), at);
                    count++;
                }
                it.status();
                batch.deleteRange(records, RocksKeys.offsetKey(purged), RocksKeys.offsetKey(upTo));
                commitMaintenance(batch, removedBytes, upTo);
            }
        }
        trimTimeIndex(target);
    }

    /** Time index entries below the start go, except the last one: it still answers for timestamps up to it. */
    private void trimTimeIndex(long first) throws RocksDBException {
        byte[] shardPrefix = RocksKeys.shardStart(id);
        try (WriteBatch batch = new WriteBatch(); RocksIterator it = db.newIterator(store.timeIndex())) {
            byte[] previous = null;
            for (it.seek(shardPrefix); it.isValid() && RocksKeys.startsWith(it.key(), shardPrefix); it.next()) {
                if (RocksKeys.readLong(it.value()) >= first) {
                    break;
                }
                if (previous != null) {
                    batch.delete(store.timeIndex(), previous);
                }
                previous = it.key();
            }
            it.status();
            if (batch.count() > 0) {
                db.write(writeOptions, batch);
            }
        }
    }

    private void deleteIndexEntries(WriteBatch batch, Record record, long offset) throws RocksDBException {
        if (record.key() != null) {
            batch.delete(store.keyIndex(), RocksKeys.termKey(id, record.key(), offset));
        }
        for (String tag : record.tags()) {
            batch.delete(store.tagIndex(), RocksKeys.termKey(id, Shard.tagBytes(tag), offset));
        }
    }

    /** Writes a maintenance batch with the state it leaves: fewer bytes, and maybe a new purge mark. */
    private void commitMaintenance(WriteBatch batch, long removedBytes, long newPurged) throws RocksDBException {
        synchronized (writeLock) {
            bytes -= removedBytes;
            purged = Math.max(purged, newPurged);
            batch.put(store.metadata(), RocksKeys.stateKey(id), state().toBytes());
            db.write(writeOptions, batch);
        }
    }

    /** One retention or compaction pass (the adapter's cleaner thread, or a test). */
    @Override
    public void maintain(long nowMs) {
        handles.readLock().lock();
        maintenanceLock.lock();
        try {
            if (closed) {
                return;
            }
            if (settings.log().cleanupPolicy() == CleanupPolicy.COMPACT) {
                compact(nowMs);
            } else {
                enforceRetention(nowMs);
            }
            purge();
        } catch (RocksDBException e) {
            throw store.failure("maintaining shard '" + name + "'", e);
        } finally {
            maintenanceLock.unlock();
            handles.readLock().unlock();
        }
    }

    private void enforceRetention(long nowMs) throws RocksDBException {
        LogSettings log = settings.log();
        if (log.retentionMs() != LogSettings.UNLIMITED && nowMs - log.retentionMs() >= 0) {
            advanceStart(firstAtOrAfter(nowMs - log.retentionMs(), start, end), false);
            purge();
        }
        if (log.retentionBytes() != LogSettings.UNLIMITED && bytes > log.retentionBytes()) {
            advanceStart(firstKeptForBytes(log.retentionBytes()), false);
        }
    }

    /** The first offset from which the records left fit {@code limit} bytes (purge has caught up). */
    private long firstKeptForBytes(long limit) throws RocksDBException {
        long last = end;
        long excess;
        synchronized (writeLock) {
            excess = bytes - limit;
        }
        try (RocksIterator it = db.newIterator(records)) {
            for (it.seek(RocksKeys.offsetKey(start)); it.isValid() && excess > 0; it.next()) {
                long at = RocksKeys.readLong(it.key());
                if (at >= last) {
                    return last;
                }
                excess -= it.value().length;
                if (excess <= 0) {
                    return at + 1;
                }
            }
            it.status();
        }
        return start;
    }

    /**
     * Walks the key index in (key, offset) order: every entry but the last of its key loses its
     * record; the last goes too when it is a tombstone older than {@code delete_retention_ms}.
     */
    private void compact(long nowMs) throws RocksDBException {
        if (dirty == 0) {
            return;
        }
        dirty = 0;
        long tombstoneCutoff = nowMs - settings.log().deleteRetentionMs();
        byte[] shardPrefix = RocksKeys.shardStart(id);
        WriteBatch batch = new WriteBatch();
        long[] removedBytes = {0};
        try (RocksIterator it = db.newIterator(store.keyIndex())) {
            byte[] previous = null;
            for (it.seek(shardPrefix); it.isValid() && RocksKeys.startsWith(it.key(), shardPrefix); it.next()) {
                byte[] entry = it.key();
                if (previous != null) {
                    boolean superseded = sameTerm(previous, entry);
                    removedBytes[0] += superseded ? remove(batch, RocksKeys.trailingOffset(previous))
                            : removeIfExpiredTombstone(batch, RocksKeys.trailingOffset(previous), tombstoneCutoff);
                }
                previous = entry;
                if (batch.count() >= MAINTENANCE_BATCH) {
                    commitMaintenance(batch, removedBytes[0], purged);
                    batch.close();
                    batch = new WriteBatch();
                    removedBytes[0] = 0;
                }
            }
            it.status();
            if (previous != null) {
                removedBytes[0] += removeIfExpiredTombstone(batch, RocksKeys.trailingOffset(previous), tombstoneCutoff);
            }
            commitMaintenance(batch, removedBytes[0], purged);
        } finally {
            batch.close();
        }
    }

    private static boolean sameTerm(byte[] a, byte[] b) {
        int length = a.length - RocksKeys.OFFSET_BYTES;
        return b.length == a.length && Arrays.equals(a, 0, length, b, 0, length);
    }

    /** Deletes the record at {@code offset} and its index entries; returns its stored bytes. */
    private long remove(WriteBatch batch, long offset) throws RocksDBException {
        byte[] value = db.get(records, RocksKeys.offsetKey(offset));
        if (value == null) {
            return 0;
        }
        deleteIndexEntries(batch, decode(offset, value), offset);
        batch.delete(records, RocksKeys.offsetKey(offset));
        return value.length;
    }

    private long removeIfExpiredTombstone(WriteBatch batch, long offset, long cutoff) throws RocksDBException {
        byte[] value = db.get(records, RocksKeys.offsetKey(offset));
        if (value == null) {
            return 0;
        }
        Record record = decode(offset, value);
        return record.isTombstone() && record.timestamp() < cutoff ? remove(batch, offset) : 0;
    }

    private Record decode(long offset, byte[] value) {
        try {
            return RecordCodec.decode(value);
        } catch (RuntimeException e) {
            throw new StorageException("shard '" + name + "' in the RocksDB database " + store.directory()
                    + ": the record at offset " + offset + " cannot be decoded: " + e.getMessage(), e);
        }
    }

    /** Runs {@code work} while the native handles stay open; RocksDB failures name the shard and the database. */
    private <T> T guarded(String what, RocksWork<T> work) {
        handles.readLock().lock();
        try {
            if (closed) {
                throw new StorageException("shard '" + name + "' in the RocksDB database " + store.directory()
                        + " is closed");
            }
            return work.run();
        } catch (RocksDBException e) {
            throw store.failure(what + " shard '" + name + "'", e);
        } finally {
            handles.readLock().unlock();
        }
    }

    /** Stops the background work and syncs the write-ahead log; the store closes the column family. */
    @Override
    public void close() {
        if (intervalSync != null) {
            intervalSync.cancel(false);
        }
        scheduler.unregister(this);
        handles.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (settings.log().flush() != FlushPolicy.ALWAYS) {
                store.syncWal();
            }
            writeOptions.close();
            syncWrite.close();
        } finally {
            handles.writeLock().unlock();
        }
    }

    @Override
    public String toString() {
        return "RocksShard[" + name + ", offsets " + start + ".." + (end - 1) + "]";
    }
}
