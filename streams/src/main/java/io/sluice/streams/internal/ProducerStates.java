package io.sluice.streams.internal;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.storage.StorageAdapter;
import io.sluice.storage.StoredRecord;
import io.sluice.streams.AppendResult.Status;
import io.sluice.streams.ProducerBatch;

/**
 * The idempotence state of one stream partition, as Kafka keeps it: per producer id its epoch and
 * its last {@value #BATCHES_KEPT} appended batches (first and last sequence number, first offset),
 * so that a retried batch is recognised and answered with its original offset, and a gap in the
 * sequence numbers is refused. Owned by the stream's appender thread.
 *
 * <h2>Durability</h2>
 * The last record of every idempotent batch carries the tag
 * {@code producer/<id>/<epoch>/<first sequence>/<count>}, written in the same append as the data,
 * so the state can always be rebuilt from the partition itself: a crash between the data and the
 * state cannot exist. To keep that rebuild short, {@link #snapshot} writes the whole state as of an
 * offset now and then; opening restores the snapshot and replays the tags after it.
 *
 * <h2>Snapshot layout (big-endian)</h2>
 * <pre>
 *  version int8 = 1 | coveredOffset int64 | producerCount int32 |
 *  producerCount times: id int64, epoch int16, lastAppendMs int64, batchCount int8,
 *                       batchCount times: firstSequence int32, count int32, firstOffset int64
 * </pre>
 * A producer idle for {@value #EXPIRY_DAYS} days is forgotten (Kafka forgets after one day; edge
 * producers may sleep longer). A producer the partition does not know may start at any sequence,
 * as in Kafka, so one whose state was forgotten or trimmed away is not refused.
 */
public final class ProducerStates {
    /** Batches remembered per producer: what Kafka keeps, and the producer's default in-flight limit. */
    static final int BATCHES_KEPT = 5;
    static final long EXPIRY_DAYS = 7;
    private static final long EXPIRY_MS = EXPIRY_DAYS * 24 * 60 * 60 * 1000;
    static final String TAG_PREFIX = "producer/";
    private static final byte SNAPSHOT_VERSION = 1;
    /** Records read per step when the state is rebuilt from a partition. */
    private static final int REPLAY_CHUNK = 4096;

    /** One appended batch; its first offset is -1 until its append is written. */
    static final class Batch {
        final int firstSequence;
        final int count;
        long firstOffset = -1;

        Batch(int firstSequence, int count) {
            this.firstSequence = firstSequence;
            this.count = count;
        }

        int lastSequence() {
            return ProducerBatch.increment(firstSequence, count - 1);
        }
    }

    private static final class Producer {
        short epoch;
        long lastAppendMs;
        final ArrayDeque<Batch> batches = new ArrayDeque<>(BATCHES_KEPT + 1);

        Producer(short epoch) {
            this.epoch = epoch;
        }

        void add(Batch batch) {
            batches.addLast(batch);
            if (batches.size() > BATCHES_KEPT) {
                batches.removeFirst();
            }
        }
    }

    /**
     * The verdict on a batch: {@code APPENDED} means "append it" and {@code batch} is its new entry,
     * to be given its offset once written; {@code DUPLICATE} names the original batch (whose offset
     * may still be -1 when the original waits in the same round); the rest are refusals.
     */
    record Verdict(Status status, Batch batch) {
    }

    private final Map<Long, Producer> producers = new HashMap<>();

    /** Decides on {@code batch} and, when it is to be appended, records it. */
    Verdict admit(ProducerBatch batch, long nowMs) {
        Producer producer = producers.get(batch.producerId());
        if (producer == null) {
            producer = new Producer(batch.epoch());
            producers.put(batch.producerId(), producer);
        } else if (batch.epoch() < producer.epoch) {
            return new Verdict(Status.INVALID_PRODUCER_EPOCH, null);
        } else if (batch.epoch() > producer.epoch) {
            if (batch.baseSequence() != 0) {
                return new Verdict(Status.OUT_OF_ORDER_SEQUENCE, null);
            }
            producer.epoch = batch.epoch();
            producer.batches.clear();
        } else {
            int last = batch.lastSequence();
            for (Batch known : producer.batches) {
                if (known.firstSequence == batch.baseSequence() && known.lastSequence() == last) {
                    return new Verdict(Status.DUPLICATE, known);
                }
            }
            Batch previous = producer.batches.peekLast();
            if (previous != null && batch.baseSequence() != ProducerBatch.increment(previous.lastSequence(), 1)) {
                return new Verdict(Status.OUT_OF_ORDER_SEQUENCE, null);
            }
        }
        Batch entry = new Batch(batch.baseSequence(), batch.count());
        producer.add(entry);
        producer.lastAppendMs = nowMs;
        return new Verdict(Status.APPENDED, entry);
    }

    /** Takes back an admitted batch whose write failed, so that its retry is not taken for a duplicate. */
    void withdraw(long producerId, Batch batch) {
        Producer producer = producers.get(producerId);
        if (producer != null) {
            producer.batches.remove(batch);
        }
    }

    /** The tag that the last record of {@code batch} carries. */
    static String tag(ProducerBatch batch) {
        return TAG_PREFIX + batch.producerId() + "/" + batch.epoch() + "/" + batch.baseSequence() + "/" + batch.count();
    }

    /**
     * Replays one tag found on the record at {@code offset} (the batch's last record), written at
     * {@code timestamp}; tags of other kinds are ignored. A malformed tag is ignored too: it cannot
     * have been written by this class, and refusing to open over it would help nobody.
     */
    void replay(String tag, long offset, long timestamp) {
        if (!tag.startsWith(TAG_PREFIX)) {
            return;
        }
        String[] parts = tag.substring(TAG_PREFIX.length()).split("/");
        if (parts.length != 4) {
            return;
        }
        try {
            ProducerBatch batch = new ProducerBatch(Long.parseLong(parts[0]), Short.parseShort(parts[1]),
                    Integer.parseInt(parts[2]), Integer.parseInt(parts[3]));
            Producer producer = producers.computeIfAbsent(batch.producerId(), id -> new Producer(batch.epoch()));
            if (batch.epoch() < producer.epoch) {
                return;
            }
            if (batch.epoch() > producer.epoch) {
                producer.epoch = batch.epoch();
                producer.batches.clear();
            }
            Batch entry = new Batch(batch.baseSequence(), batch.count());
            entry.firstOffset = offset - batch.count() + 1;
            producer.add(entry);
            producer.lastAppendMs = Math.max(producer.lastAppendMs, timestamp);
        } catch (IllegalArgumentException e) {
            // not ours; see above
        }
    }

    /**
     * Rebuilds the state of partition {@code shard}: the snapshot (null for none), then the producer
     * tags of every record after the offset it covers. Returns the offset the snapshot covers when
     * it is still current (nothing written after it), else -1, meaning "write a new one".
     */
    public long rebuild(StorageAdapter adapter, String shard, byte[] snapshot) {
        long start = adapter.startOffset(shard);
        long end = adapter.endOffset(shard);
        long covered = snapshot == null ? -1 : restore(snapshot);
        if (covered > end) {
            // The partition restarted below its snapshot (the memory engine after a restart): offsets are reused.
            producers.clear();
            covered = -1;
        }
        long offset = Math.max(start, covered);
        while (offset < end) {
            List<StoredRecord> chunk = adapter.readByOffset(shard, offset, REPLAY_CHUNK, 16 << 20);
            if (chunk.isEmpty()) {
                break;
            }
            for (StoredRecord record : chunk) {
                for (String tag : record.tags()) {
                    replay(tag, record.offset(), record.timestamp());
                }
            }
            offset = chunk.get(chunk.size() - 1).offset() + 1;
        }
        return covered == end ? end : -1;
    }

    /** Forgets producers idle since before {@code nowMs} minus the expiry. */
    void expire(long nowMs) {
        producers.values().removeIf(p -> nowMs - p.lastAppendMs > EXPIRY_MS);
    }

    /** How many producers are known. */
    int size() {
        return producers.size();
    }

    /** The whole state, as of {@code coveredOffset} (every record below it is reflected). */
    byte[] snapshot(long coveredOffset) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + producers.size() * 64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(SNAPSHOT_VERSION);
            out.writeLong(coveredOffset);
            out.writeInt(producers.size());
            for (Map.Entry<Long, Producer> entry : producers.entrySet()) {
                Producer producer = entry.getValue();
                out.writeLong(entry.getKey());
                out.writeShort(producer.epoch);
                out.writeLong(producer.lastAppendMs);
                int written = 0;
                for (Batch batch : producer.batches) {
                    written += batch.firstOffset >= 0 ? 1 : 0;
                }
                out.writeByte(written);
                for (Batch batch : producer.batches) {
                    if (batch.firstOffset >= 0) {
                        out.writeInt(batch.firstSequence);
                        out.writeInt(batch.count);
                        out.writeLong(batch.firstOffset);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * Replaces the state with a snapshot; returns the offset it covers, or -1 (and an empty state)
     * when the snapshot cannot be read.
     */
    long restore(byte[] snapshot) {
        producers.clear();
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(snapshot))) {
            if (in.readByte() != SNAPSHOT_VERSION) {
                return -1;
            }
            long covered = in.readLong();
            int count = in.readInt();
            for (int i = 0; i < count; i++) {
                long id = in.readLong();
                Producer producer = new Producer(in.readShort());
                producer.lastAppendMs = in.readLong();
                int batches = in.readByte();
                for (int b = 0; b < batches; b++) {
                    Batch batch = new Batch(in.readInt(), in.readInt());
                    batch.firstOffset = in.readLong();
                    producer.add(batch);
                }
                producers.put(id, producer);
            }
            return covered;
        } catch (IOException e) {
            producers.clear();
            return -1;
        }
    }
}
