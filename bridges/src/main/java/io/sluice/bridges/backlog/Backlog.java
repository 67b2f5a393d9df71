package io.sluice.bridges.backlog;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import io.sluice.bridges.BridgeCounter;
import io.sluice.bridges.BridgeCounters;
import io.sluice.bridges.FullPolicy;
import io.sluice.logging.RateLimitedLog;
import io.sluice.storage.Record;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageAdapter;
import io.sluice.storage.StorageException;
import io.sluice.storage.StoredRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * A bridge's backlog: the messages it must still deliver, in a shard of the bridges' storage
 * adapter (segment engine), with a committed cursor as a Kafka consumer group keeps its offset.
 *
 * <p>Offsets below {@link #start()} are done: acknowledged by the remote, or dropped or expired
 * (and counted). Offsets from {@link #start()} to {@link #end()} wait. The start moves in memory as
 * acknowledgements arrive; {@link #commit()} makes it durable (the consumer-group offset, fsynced)
 * and only then trims the shard below it. Nothing leaves the shard before the remote acknowledged
 * it, and a crash between an acknowledgement and the next commit costs a resend, never a message.
 *
 * <p>Bounds: at most {@code maxMessages} messages (0 for no bound) and {@code maxBytes} bytes of
 * record values; what happens at the bound is the {@link FullPolicy}. Records are appended only by
 * the bridge's writer thread ({@link #admit}, {@link #store}); the bridge thread reads, acknowledges
 * and commits. The counts are guarded by this object's lock, held for a few field updates only;
 * no lock is held across storage I/O.
 */
public final class Backlog {
    /** The consumer group under which every bridge commits its cursor. */
    static final String GROUP = "bridge";
    private static final Logger LOG = LoggerFactory.getLogger(Backlog.class);
    private static final int READ_BYTES = 4 << 20;

    private final StorageAdapter storage;
    private final String shard;
    private final String bridge;
    private final long maxMessages;
    private final long maxBytes;
    private final FullPolicy fullPolicy;
    private final BridgeCounters counters;
    private final RateLimitedLog fullLog;
    private final RateLimitedLog errorLog;
    private final RecordSizes sizes = new RecordSizes();

    private long start;
    private long end;
    private long bytes;
    private long reservedMessages;
    private long reservedBytes;
    private volatile long committed;
    private final Object commitLock = new Object();

    private Backlog(StorageAdapter storage, String shard, String bridge, long maxMessages, long maxBytes,
                    FullPolicy fullPolicy, BridgeCounters counters) {
        this.storage = storage;
        this.shard = shard;
        this.bridge = bridge;
        this.maxMessages = maxMessages;
        this.maxBytes = maxBytes;
        this.fullPolicy = fullPolicy;
        this.counters = counters;
        this.fullLog = RateLimitedLog.onePer(LOG, "bridge " + bridge, Duration.ofSeconds(10));
        this.errorLog = RateLimitedLog.onePer(LOG, "bridge " + bridge, Duration.ofSeconds(10));
    }

    /**
     * Opens the backlog of bridge {@code bridge} in shard {@code shard}, creating the shard with
     * {@code settings} if it does not exist. Messages stored before (and not committed as delivered)
     * are there again.
     */
    public static Backlog open(StorageAdapter storage, String shard, ShardSettings settings, String bridge,
                               long maxMessages, long maxBytes, FullPolicy fullPolicy, BridgeCounters counters) {
        Backlog backlog = new Backlog(storage, shard, bridge, maxMessages, maxBytes, fullPolicy, counters);
        backlog.openShard(settings);
        return backlog;
    }

    private void openShard(ShardSettings settings) {
        if (storage.shardExists(shard) && !storage.shardSettings(shard).equals(settings)) {
            OptionalLong cursor = storage.groupOffset(GROUP, shard);
            if (cursor.orElse(storage.startOffset(shard)) >= storage.endOffset(shard)) {
                LOG.info("bridge {}: backlog settings changed and the backlog is empty: recreating shard '{}'",
                        bridge, shard);
                storage.deleteShard(shard);
            } else {
                LOG.warn("bridge {}: backlog settings changed; shard '{}' keeps its old settings {} until its"
                        + " backlog is empty", bridge, shard, storage.shardSettings(shard));
            }
        }
        if (!storage.shardExists(shard)) {
            storage.createShard(shard, settings);
        }
        long first = storage.startOffset(shard);
        start = Math.max(first, storage.groupOffset(GROUP, shard).orElse(first));
        end = storage.endOffset(shard);
        committed = start;
        for (long offset = start; offset < end; ) {
            List<StoredRecord> records = storage.readByOffset(shard, offset, 4096, READ_BYTES);
            if (records.isEmpty()) {
                break;
            }
            for (StoredRecord record : records) {
                int size = sizeOf(record.value());
                sizes.addLast(size);
                bytes += size;
            }
            offset = records.get(records.size() - 1).offset() + 1;
        }
        if (end > start) {
            LOG.info("bridge {}: {} messages ({} bytes) wait in the backlog from before", bridge, end - start, bytes);
        }
    }

    private static int sizeOf(byte[] value) {
        return value == null ? 0 : value.length;
    }

    /**
     * Writer thread: reserves room for a batch of records of the given sizes, oldest first, applying
     * the full policy; returns which are admitted. With {@code drop_oldest} the oldest waiting messages
     * make room, stored ones first and then the batch's own earliest ones (which are then never
     * stored); with {@code refuse_new} the records that do not fit are refused. Both are counted.
     */
    public synchronized boolean[] admit(int[] sizes) {
        boolean[] admitted = new boolean[sizes.length];
        int oldestInBatch = 0;
        long dropped = 0;
        long refused = 0;
        for (int i = 0; i < sizes.length; i++) {
            if (!fits(sizes[i]) && fullPolicy == FullPolicy.DROP_OLDEST) {
                while (!fits(sizes[i]) && start < end) {
                    dropOne();
                    dropped++;
                }
                while (!fits(sizes[i]) && oldestInBatch < i) {
                    if (admitted[oldestInBatch]) {
                        admitted[oldestInBatch] = false;
                        reservedMessages--;
                        reservedBytes -= sizes[oldestInBatch];
                        dropped++;
                    }
                    oldestInBatch++;
                }
            }
            if (fits(sizes[i])) {
                reserve(sizes[i]);
                admitted[i] = true;
            } else {
                refused++;
            }
        }
        report(dropped, refused);
        return admitted;
    }

    private void report(long dropped, long refused) {
        if (dropped > 0) {
            counters.add(BridgeCounter.DROPPED_OLDEST, dropped);
            if (fullLog.admit(1)) {
                fullLog.write(Level.WARN, "backlog full (" + limits() + "): dropped the " + dropped
                        + " oldest waiting messages to make room; " + counters.get(BridgeCounter.DROPPED_OLDEST)
                        + " dropped so far", null);
            }
        }
        if (refused > 0) {
            counters.add(BridgeCounter.REFUSED_FULL, refused);
            if (fullLog.admit(1)) {
                fullLog.write(Level.WARN, "backlog full (" + limits() + "): refused " + refused + " new messages; "
                        + counters.get(BridgeCounter.REFUSED_FULL) + " refused so far", null);
            }
        }
    }

    private boolean fits(int size) {
        long messages = end - start + reservedMessages + 1;
        long total = bytes + reservedBytes + size;
        return (maxMessages == 0 || messages <= maxMessages) && total <= maxBytes;
    }

    private void reserve(int size) {
        reservedMessages++;
        reservedBytes += size;
    }

    private void dropOne() {
        bytes -= sizes.removeFirst();
        start++;
    }

    private String limits() {
        return (maxMessages == 0 ? "" : "disk_cache_size " + maxMessages + ", ") + "disk_cache_bytes " + maxBytes;
    }

    /**
     * Writer thread: appends the admitted records in order and returns once they are durable under
     * the shard's flush policy. On failure the reservations are given back and the exception names
     * the shard.
     */
    public void store(List<Record> records) {
        long reservedSize = 0;
        for (Record record : records) {
            reservedSize += sizeOf(record.value());
        }
        try {
            storage.batchWrite(shard, records);
        } catch (RuntimeException e) {
            synchronized (this) {
                reservedMessages -= records.size();
                reservedBytes -= reservedSize;
            }
            throw new StorageException("bridge " + bridge + ": storing " + records.size() + " messages in shard '"
                    + shard + "' failed: " + e.getMessage(), e);
        }
        synchronized (this) {
            for (Record record : records) {
                int size = sizeOf(record.value());
                sizes.addLast(size);
                bytes += size;
            }
            end += records.size();
            reservedMessages -= records.size();
            reservedBytes -= reservedSize;
        }
    }

    /**
     * Bridge thread: up to {@code max} waiting messages from {@code from} on (at least {@link #start()}),
     * in order; a record that does not decode is skipped, logged and counted.
     */
    public List<Waiting> read(long from, int max) {
        List<Waiting> waiting = new ArrayList<>(Math.min(max, 1024));
        List<StoredRecord> records = storage.readByOffset(shard, from, max, READ_BYTES);
        for (StoredRecord record : records) {
            try {
                waiting.add(new Waiting(record.offset(), BacklogRecord.decode(record.value())));
            } catch (IllegalArgumentException e) {
                counters.increment(BridgeCounter.STORE_FAILED);
                waiting.add(new Waiting(record.offset(), null));
                if (errorLog.admit(1)) {
                    errorLog.write(Level.ERROR, "shard '" + shard + "' offset " + record.offset()
                            + ": skipping a damaged backlog record: " + e.getMessage(), null);
                }
            }
        }
        return waiting;
    }

    /** A message read back from the backlog, or a damaged record ({@code record} null) to skip. */
    public record Waiting(long offset, BacklogRecord record) {
    }

    /** Bridge thread: everything below {@code offset} is done (acknowledged, or dropped as expired). */
    public synchronized void acknowledgeUpTo(long offset) {
        long limit = Math.min(offset, end);
        while (start < limit) {
            dropOne();
        }
    }

    /**
     * Makes the start durable (the group offset, fsynced), then trims the shard below it. One commit
     * at a time, from any thread. A failure is logged: the messages stay and are sent again.
     */
    public void commit() {
        synchronized (commitLock) {
            long target;
            synchronized (this) {
                target = start;
            }
            if (target <= committed) {
                return;
            }
            try {
                storage.commitOffset(GROUP, shard, target);
                committed = target;
                storage.deleteRecordsBefore(shard, target);
            } catch (RuntimeException e) {
                if (errorLog.admit(1)) {
                    errorLog.write(Level.ERROR, "committing the cursor of shard '" + shard + "' at " + target
                            + " failed; delivered messages may be sent again after a restart", e);
                }
            }
        }
    }

    /** The first offset still waiting. */
    public synchronized long start() {
        return start;
    }

    /** The offset the next stored message gets. */
    public synchronized long end() {
        return end;
    }

    /** Messages waiting. */
    public synchronized long size() {
        return end - start;
    }

    /** Bytes of the waiting messages' records. */
    public synchronized long bytes() {
        return bytes;
    }

    /** The last durably committed cursor. */
    public long committed() {
        return committed;
    }

    public String shard() {
        return shard;
    }
}
