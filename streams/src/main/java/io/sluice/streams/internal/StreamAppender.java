package io.sluice.streams.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.logging.RateLimitedLog;
import io.sluice.storage.Receipt;
import io.sluice.storage.Record;
import io.sluice.storage.StorageAdapter;
import io.sluice.storage.TopicRouter;
import io.sluice.streams.AppendListener;
import io.sluice.streams.AppendResult;
import io.sluice.streams.CapturedMessage;
import io.sluice.streams.PartitionKey;
import io.sluice.streams.ProducerBatch;
import io.sluice.streams.Stream;
import io.sluice.streams.StreamCounter;
import io.sluice.streams.StreamRecords;

/**
 * The one writer of a stream: a thread ({@code sluice-stream-<name>-appender}) that takes captured
 * MQTT messages and Kafka batches from a lock-free queue, appends them to their partitions and
 * only then completes them, so that an acknowledgement never goes out before its record is durable
 * under the stream's flush policy, and no event loop ever waits for storage.
 *
 * <p>Each round drains what has queued up (up to {@value #ROUND_ITEMS} items), checks producer
 * sequence numbers, writes one batch per partition, and completes everything: MQTT
 * acknowledgements are released, Kafka callbacks get their offsets, {@link AppendListener}s learn
 * the new end offsets. What queues while a round writes (an fsync, with {@code flush = always})
 * goes into the next one: the group commit comes from the queue itself.
 *
 * <p>It alone touches the producer states, the round-robin counter and the scratch lists, so none
 * of them needs a lock. Every {@value #SNAPSHOT_SECONDS} seconds of activity, and at close, it
 * writes the producer-state snapshots ({@link ProducerStates}).
 */
public final class StreamAppender implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(StreamAppender.class);
    static final int ROUND_ITEMS = 4096;
    /** Bytes of captured messages that may wait for the appender before further ones are refused. */
    static final long MAX_QUEUED_CAPTURE_BYTES = 64L << 20;
    static final long SNAPSHOT_SECONDS = 30;
    private static final long SNAPSHOT_NANOS = TimeUnit.SECONDS.toNanos(SNAPSHOT_SECONDS);
    /** Overhead counted per captured message besides topic and payload. */
    private static final int MESSAGE_OVERHEAD = 64;

    /** One unit of work. */
    private sealed interface Item permits Capture, Produce {
    }

    private record Capture(CapturedMessage message, Runnable onDurable, long weight) implements Item {
    }

    private record Produce(int partition, List<Record> records, ProducerBatch producer,
                           Consumer<AppendResult> done) implements Item {
    }

    /** A produce of this round: where its records start in the partition's batch, and its producer entry. */
    private record Pending(Produce produce, int firstIndex, ProducerStates.Batch batch) {
    }

    /** A duplicate of this round, answered once its original (maybe in this round) is written. */
    private record Duplicate(Produce produce, ProducerStates.Batch original) {
    }

    /** What a round writes to one partition. */
    private static final class Scratch {
        final List<Record> records = new ArrayList<>();
        final List<Runnable> captures = new ArrayList<>();
        final List<Pending> produces = new ArrayList<>();

        void clear() {
            records.clear();
            captures.clear();
            produces.clear();
        }
    }

    private final Stream stream;
    private final StorageAdapter adapter;
    private final StateLog state;
    private final ProducerStates[] producers;
    private final long[] snapshotOffsets;
    private final List<AppendListener> listeners;
    private final AtomicLongArray counters;
    private final RateLimitedLog failures;
    private final ConcurrentLinkedQueue<Item> queue = new ConcurrentLinkedQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final Scratch[] scratch;
    private final List<Item> round = new ArrayList<>(ROUND_ITEMS);
    private final List<Duplicate> duplicates = new ArrayList<>();
    private final Thread thread;
    private volatile boolean sleeping;
    private volatile boolean closing;
    private volatile boolean closed;
    private long roundRobin;
    private long nextSnapshotNanos;

    /**
     * @param producers       the restored producer state of each partition, handed over to this thread
     * @param snapshotOffsets per partition, the offset the stored snapshot covers (-1 for none)
     * @param listeners       told of every append (a live list: listeners may come and go)
     * @param counters        indexed by {@link StreamCounter#ordinal()}
     */
    public StreamAppender(Stream stream, StorageAdapter adapter, StateLog state, ProducerStates[] producers,
                          long[] snapshotOffsets, List<AppendListener> listeners, AtomicLongArray counters) {
        this.stream = stream;
        this.adapter = adapter;
        this.state = state;
        this.producers = producers;
        this.snapshotOffsets = snapshotOffsets;
        this.listeners = listeners;
        this.counters = counters;
        this.failures = RateLimitedLog.onePer(LOG, "stream " + stream.name(), Duration.ofSeconds(10));
        this.scratch = new Scratch[producers.length];
        for (int p = 0; p < scratch.length; p++) {
            scratch[p] = new Scratch();
        }
        this.thread = new Thread(this, "sluice-stream-" + stream.name() + "-appender");
        this.thread.setDaemon(true);
    }

    public void start() {
        nextSnapshotNanos = System.nanoTime() + SNAPSHOT_NANOS;
        thread.start();
    }

    /**
     * Queues a captured message; {@code onDurable} runs once it is durable, and is refused
     * ({@link Receipt#refuse}) when its append fails (counted and logged). Never blocks; false when
     * the queue is full or closed.
     */
    public boolean capture(CapturedMessage message, Runnable onDurable) {
        long weight = message.payload().length + message.topic().length() + MESSAGE_OVERHEAD;
        if (closing || queuedBytes.get() + weight > MAX_QUEUED_CAPTURE_BYTES) {
            counters.incrementAndGet(StreamCounter.CAPTURES_REFUSED.ordinal());
            return false;
        }
        queuedBytes.addAndGet(weight);
        enqueue(new Capture(message, onDurable, weight));
        return true;
    }

    /** Queues records for one partition; {@code done} gets the outcome on the appender thread. */
    public void append(int partition, List<Record> records, ProducerBatch producer, Consumer<AppendResult> done) {
        if (closing) {
            done.accept(AppendResult.failed(closedError()));
            return;
        }
        enqueue(new Produce(partition, records, producer, done));
    }

    private void enqueue(Item item) {
        queue.offer(item);
        if (closed) {
            failLeftovers(); // the appender has gone: nobody else will ever take it
        } else if (sleeping) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void run() {
        try {
            while (true) {
                drain();
                if (round.isEmpty()) {
                    if (closing) {
                        break;
                    }
                    snapshotIfDue();
                    sleep();
                    continue;
                }
                process();
                round.clear();
                snapshotIfDue();
            }
            snapshot();
        } catch (RuntimeException | Error e) {
            LOG.error("stream '{}': the appender thread failed; the stream takes no more records", stream.name(), e);
        } finally {
            closed = true;
            failLeftovers();
        }
    }

    private void drain() {
        Item item;
        while (round.size() < ROUND_ITEMS && (item = queue.poll()) != null) {
            round.add(item);
        }
    }

    private void sleep() {
        sleeping = true;
        try {
            if (queue.isEmpty() && !closing) {
                LockSupport.parkNanos(this, Math.max(1, nextSnapshotNanos - System.nanoTime()));
            }
        } finally {
            sleeping = false;
        }
    }

    private void process() {
        long now = System.currentTimeMillis();
        for (Item item : round) {
            if (item instanceof Capture capture) {
                queuedBytes.addAndGet(-capture.weight());
                Scratch target = scratch[partitionOf(capture.message())];
                target.records.add(StreamRecords.of(capture.message()));
                target.captures.add(capture.onDurable());
            } else {
                admit((Produce) item, now);
            }
        }
        for (int p = 0; p < scratch.length; p++) {
            if (!scratch[p].records.isEmpty()) {
                write(p, scratch[p]);
                scratch[p].clear();
            }
        }
        for (Duplicate duplicate : duplicates) {
            long offset = duplicate.original().firstOffset;
            complete(duplicate.produce(), offset >= 0 ? AppendResult.duplicate(offset)
                    : AppendResult.failed(new IllegalStateException("the original of a retried batch failed to append")));
        }
        duplicates.clear();
    }

    private void admit(Produce produce, long now) {
        ProducerStates.Batch entry = null;
        List<Record> records = produce.records();
        if (produce.producer() != null) {
            ProducerStates.Verdict verdict = producers[produce.partition()].admit(produce.producer(), now);
            switch (verdict.status()) {
                case APPENDED -> entry = verdict.batch();
                case DUPLICATE -> {
                    counters.incrementAndGet(StreamCounter.DUPLICATE_BATCHES.ordinal());
                    duplicates.add(new Duplicate(produce, verdict.batch()));
                    return;
                }
                default -> {
                    counters.incrementAndGet(StreamCounter.SEQUENCE_REFUSALS.ordinal());
                    complete(produce, AppendResult.refused(verdict.status()));
                    return;
                }
            }
            records = tagLast(records, ProducerStates.tag(produce.producer()));
        }
        Scratch target = scratch[produce.partition()];
        target.produces.add(new Pending(produce, target.records.size(), entry));
        target.records.addAll(records);
    }

    /** The records with the producer tag added to the last one, so the state can be rebuilt from the data. */
    private static List<Record> tagLast(List<Record> records, String tag) {
        List<Record> tagged = new ArrayList<>(records);
        Record last = tagged.get(tagged.size() - 1);
        List<String> tags = new ArrayList<>(last.tags());
        tags.add(tag);
        tagged.set(tagged.size() - 1, new Record(last.key(), last.value(), last.timestamp(), tags, last.headers()));
        return tagged;
    }

    private int partitionOf(CapturedMessage message) {
        int partitions = scratch.length;
        if (partitions == 1) {
            return 0;
        }
        PartitionKey key = stream.settings().partitionKey();
        if (key == PartitionKey.TOPIC) {
            return TopicRouter.partitionForKey(message.topic().getBytes(StandardCharsets.UTF_8), partitions);
        }
        if (key == PartitionKey.CLIENTID && message.clientId() != null) {
            return TopicRouter.partitionForKey(message.clientId().getBytes(StandardCharsets.UTF_8), partitions);
        }
        return (int) Math.floorMod(roundRobin++, (long) partitions);
    }

    private void write(int partition, Scratch batch) {
        long[] offsets;
        try {
            offsets = adapter.batchWrite(stream.shard(partition), batch.records);
        } catch (RuntimeException e) {
            failed(partition, batch, e);
            return;
        }
        counters.addAndGet(StreamCounter.RECORDS_CAPTURED.ordinal(), batch.captures.size());
        counters.addAndGet(StreamCounter.RECORDS_PRODUCED.ordinal(), batch.records.size() - batch.captures.size());
        for (Pending pending : batch.produces) {
            long base = offsets[pending.firstIndex()];
            if (pending.batch() != null) {
                pending.batch().firstOffset = base;
            }
            complete(pending.produce(), AppendResult.appended(base));
        }
        for (Runnable onDurable : batch.captures) {
            release(onDurable);
        }
        long end = offsets[offsets.length - 1] + 1;
        for (AppendListener listener : listeners) {
            try {
                listener.appended(stream, partition, end);
            } catch (RuntimeException e) {
                LOG.error("stream '{}': an append listener failed", stream.name(), e);
            }
        }
    }

    /**
     * The storage refused the write. Kafka producers get the error and retry; MQTT acknowledgements
     * are refused ({@link Receipt#refuse}), so a publisher is neither kept waiting nor told the
     * message was stored (the failure is counted and logged).
     */
    private void failed(int partition, Scratch batch, RuntimeException e) {
        counters.addAndGet(StreamCounter.APPEND_FAILURES.ordinal(), batch.records.size());
        failures.error("appending " + batch.records.size() + " records to partition " + partition + " ("
                + stream.shard(partition) + ") failed: " + e.getMessage(), e);
        for (Pending pending : batch.produces) {
            if (pending.batch() != null) {
                producers[partition].withdraw(pending.produce().producer().producerId(), pending.batch());
            }
            complete(pending.produce(), AppendResult.failed(e));
        }
        for (Runnable onDurable : batch.captures) {
            refuse(onDurable);
        }
    }

    private void complete(Produce produce, AppendResult result) {
        try {
            produce.done().accept(result);
        } catch (RuntimeException e) {
            LOG.error("stream '{}': a produce callback failed", stream.name(), e);
        }
    }

    private void release(Runnable onDurable) {
        if (onDurable == null) {
            return;
        }
        try {
            onDurable.run();
        } catch (RuntimeException e) {
            LOG.error("stream '{}': releasing an acknowledgement failed", stream.name(), e);
        }
    }

    private void refuse(Runnable onDurable) {
        try {
            Receipt.refuse(onDurable);
        } catch (RuntimeException e) {
            LOG.error("stream '{}': refusing an acknowledgement failed", stream.name(), e);
        }
    }

    private void snapshotIfDue() {
        if (System.nanoTime() - nextSnapshotNanos >= 0) {
            snapshot();
            nextSnapshotNanos = System.nanoTime() + SNAPSHOT_NANOS;
        }
    }

    /** Writes the producer state of every partition whose end moved since its last snapshot. */
    private void snapshot() {
        long now = System.currentTimeMillis();
        for (int p = 0; p < producers.length; p++) {
            try {
                long end = adapter.endOffset(stream.shard(p));
                if (end == snapshotOffsets[p]) {
                    continue;
                }
                producers[p].expire(now);
                state.put(snapshotKey(stream.shard(p)), producers[p].snapshot(end));
                snapshotOffsets[p] = end;
            } catch (RuntimeException e) {
                failures.error("writing the producer-state snapshot of partition " + p + " failed: " + e.getMessage(), e);
            }
        }
    }

    /** The {@link StateLog} key of a partition's producer-state snapshot. */
    public static String snapshotKey(String shard) {
        return "producers/" + shard;
    }

    /** Fails everything still queued: the appender is gone. Safe from any thread; each item is taken once. */
    private void failLeftovers() {
        Item item;
        while ((item = queue.poll()) != null) {
            if (item instanceof Capture capture) {
                queuedBytes.addAndGet(-capture.weight());
                counters.incrementAndGet(StreamCounter.CAPTURES_REFUSED.ordinal());
                refuse(capture.onDurable());
            } else {
                complete((Produce) item, AppendResult.failed(closedError()));
            }
        }
    }

    private IllegalStateException closedError() {
        return new IllegalStateException("stream '" + stream.name() + "' is closed");
    }

    /** Appends everything queued, writes the snapshots and stops the thread. */
    public void close() {
        closing = true;
        LockSupport.unpark(thread);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!thread.isAlive()) {
            closed = true;
            failLeftovers();
        }
    }
}
