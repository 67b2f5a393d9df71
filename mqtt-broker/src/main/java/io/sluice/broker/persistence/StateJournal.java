package io.sluice.broker.persistence;

import io.sluice.broker.message.Message;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;
import io.sluice.broker.retain.RetainedJournal;
import io.sluice.broker.session.SessionJournal;
import io.sluice.broker.session.SessionSnapshot;
import io.sluice.broker.session.StoredDelivery;
import io.sluice.storage.Receipt;
import io.sluice.storage.Record;
import io.sluice.storage.StorageAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes every change of the broker's durable state (retained messages, persistent sessions,
 * their deliveries and inbound QoS 2 ids) to the compacted state shard, incrementally: an
 * append-only log of keyed records, never a snapshot (key layout in {@link StateKey}, values in
 * {@link StateCodec}).
 *
 * <p>Threading: sessions and the retained store call in from any thread, with their own lock
 * held; a call only enqueues an event. One writer thread, {@code sluice-state-journal}, owns
 * everything else: it drains the events in batches, coalesces them by key (a delivery queued and
 * acknowledged within one batch never reaches the disk), writes the batch with one
 * {@code batchWrite} (one fsync under the {@code always} policy: group commit), and only then runs
 * the {@link #whenWritten} callbacks registered before it, which is how acknowledgements wait for
 * durability without blocking an event loop.
 *
 * <p>A message delivered to many persistent sessions is written once, under a message id, and
 * each delivery record points to it; the writer counts the references and deletes the message
 * record with the last one.
 *
 * <p>Should the writer thread ever fail, it refuses the callbacks of the batch it was writing and
 * of every event queued then or later ({@link Receipt#refuse}): an acknowledgement waiting for the
 * journal is always answered, never left hanging. The failure is counted
 * ({@link BrokerCounter#STATE_JOURNAL_FAILURES}), so is every callback refused for it
 * ({@link BrokerCounter#STATE_WRITES_REFUSED}), and {@link #problem()} says why until a restart.
 *
 * <p>A failed writer is not restarted, because a new thread could not resume from the durable
 * state: the journal writes changes, not snapshots, against bookkeeping the writer keeps in memory
 * (which keys are on disk, each message record's references, the next message id), and that
 * bookkeeping was updated for the failed batch before its write, which may or may not have reached
 * the shard, and whose events are gone. A new writer would write later changes on top of a log
 * that misses them (a delivery pointing to a message record never written, a removal or a session's
 * end lost), so it would acknowledge as stored what the next start cannot restore; and after an
 * {@link Error} inside the storage adapter, the shard's own in-memory state is not known either.
 * Resuming safely means reading the shard back and writing the broker's whole live state again,
 * which is what a restart of the broker does.
 */
public final class StateJournal implements SessionJournal, RetainedJournal, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StateJournal.class);
    private static final int MAX_BATCH_EVENTS = 16_384;
    private static final Object TOMBSTONE = new Object();

    private final StorageAdapter storage;
    private final String shard;
    private final ConcurrentLinkedQueue<Object> events = new ConcurrentLinkedQueue<>();
    private final Thread writer;
    private volatile boolean running = true;
    private volatile boolean parked;
    /** The writer thread has ended: nothing enqueued now would ever be written. */
    private volatile boolean stopped;
    /** What ended the writer thread before {@link #close}, or null. */
    private volatile Throwable failure;
    /** Where failures and refusals are counted; the broker's once {@link #countIn} ran. */
    private BrokerMetrics metrics = new BrokerMetrics();

    // Owned by the writer thread.
    private final Map<String, Set<StateKey>> keysOnDisk;
    private final Map<StateKey, Long> deliveryMessages;
    private final IdentityHashMap<Message, Long> messageIds;
    private final Map<Long, MessageRef> messageRefs;
    /** Callbacks waiting for the batch being written, each taken out before it is settled. */
    private final ArrayDeque<Runnable> barriers = new ArrayDeque<>();
    private long nextMessageId;

    private record Put(StateKey key, Object value) {
    }

    private record EndSession(String clientId) {
    }

    private record Barrier(Runnable callback) {
    }

    /** A message record and how many delivery records on disk point to it. */
    static final class MessageRef {
        final Message message;
        int references;

        MessageRef(Message message, int references) {
            this.message = message;
            this.references = references;
        }
    }

    /** What the loader found on disk, so that the journal continues from it. */
    record Seeds(Map<String, Set<StateKey>> keysOnDisk, Map<StateKey, Long> deliveryMessages,
                 Map<Long, MessageRef> messageRefs, long nextMessageId) {
        static Seeds empty() {
            return new Seeds(new HashMap<>(), new HashMap<>(), new HashMap<>(), 1);
        }
    }

    StateJournal(StorageAdapter storage, String shard, Seeds seeds) {
        this.storage = storage;
        this.shard = shard;
        this.keysOnDisk = seeds.keysOnDisk();
        this.deliveryMessages = seeds.deliveryMessages();
        this.messageRefs = seeds.messageRefs();
        this.messageIds = new IdentityHashMap<>();
        seeds.messageRefs().forEach((id, ref) -> messageIds.put(ref.message, id));
        this.nextMessageId = seeds.nextMessageId();
        this.writer = new Thread(this::run, "sluice-state-journal");
        this.writer.setDaemon(true);
        this.writer.start();
    }

    // ---- producers: any thread ----

    private void enqueue(Object event) {
        events.add(event);
        if (stopped) {
            refuseQueued(); // the writer has gone: nobody else will ever take it
        } else if (parked) {
            LockSupport.unpark(writer);
        }
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public void sessionSaved(SessionSnapshot snapshot) {
        enqueue(new Put(StateKey.session(snapshot.clientId()), snapshot));
    }

    @Override
    public void sessionEnded(String clientId) {
        enqueue(new EndSession(clientId));
    }

    @Override
    public void deliverySaved(String clientId, StoredDelivery delivery) {
        enqueue(new Put(StateKey.delivery(clientId, delivery.seq()), delivery));
    }

    @Override
    public void deliveryRemoved(String clientId, long seq) {
        enqueue(new Put(StateKey.delivery(clientId, seq), TOMBSTONE));
    }

    @Override
    public void qos2Received(String clientId, int packetId) {
        enqueue(new Put(StateKey.qos2(clientId, packetId), Boolean.TRUE));
    }

    @Override
    public void qos2Released(String clientId, int packetId) {
        enqueue(new Put(StateKey.qos2(clientId, packetId), TOMBSTONE));
    }

    @Override
    public void stored(Message message) {
        enqueue(new Put(StateKey.retained(message.topic()), message));
    }

    @Override
    public void removed(String topic) {
        enqueue(new Put(StateKey.retained(topic), TOMBSTONE));
    }

    /**
     * Runs {@code callback} on the writer thread once every change reported before this call is
     * written under the shard's flush policy. After a failed write (logged) it is refused instead
     * ({@link Receipt#refuse}): an acknowledgement must neither hang on a broken disk nor claim a
     * message was stored when it was not.
     */
    @Override
    public void whenWritten(Runnable callback) {
        enqueue(new Barrier(callback));
    }

    // ---- the writer thread ----

    private void run() {
        try {
            writeUntilClosed();
        } catch (RuntimeException | Error e) {
            failure = e;
            count(BrokerCounter.STATE_JOURNAL_FAILURES, 1);
            LOG.error("the broker-state journal's writer thread failed: state changes are no longer written, and the "
                    + "PUBLISHes waiting for them are not acknowledged as stored, until a restart (it is not restarted: "
                    + "its bookkeeping no longer matches the shard)", e);
        } finally {
            stopped = true;
            settleBarriers(false);
            refuseQueued();
        }
    }

    private void writeUntilClosed() {
        List<Object> batch = new ArrayList<>();
        while (running || !events.isEmpty()) {
            Object event = events.poll();
            if (event == null) {
                parked = true;
                if (events.isEmpty() && running) {
                    LockSupport.parkNanos(this, 50_000_000L);
                }
                parked = false;
                continue;
            }
            int taken = 1;
            take(event, batch);
            while (taken < MAX_BATCH_EVENTS && (event = events.poll()) != null) {
                take(event, batch);
                taken++;
            }
            writeBatch(batch);
            batch.clear();
        }
    }

    /** A callback goes straight to {@link #barriers}, so that a failing writer still finds it there. */
    private void take(Object event, List<Object> batch) {
        if (event instanceof Barrier barrier) {
            barriers.add(barrier.callback());
        } else {
            batch.add(event);
        }
    }

    private void writeBatch(List<Object> batch) {
        LinkedHashMap<StateKey, Object> intents = new LinkedHashMap<>();
        for (Object event : batch) {
            if (event instanceof Put put) {
                intents.put(put.key(), put.value());
            } else if (event instanceof EndSession end) {
                endSession(end.clientId(), intents);
            }
        }
        List<Record> records = new ArrayList<>(intents.size() + 4);
        long now = System.currentTimeMillis();
        intents.forEach((key, value) -> toRecords(key, value, now, records));
        boolean written = true;
        try {
            if (!records.isEmpty()) {
                storage.batchWrite(shard, records);
            }
        } catch (RuntimeException e) {
            written = false;
            LOG.error("writing {} broker-state records to shard '{}' failed; state changes since the last "
                    + "successful write may not survive a restart, and the PUBLISHes waiting for them are not "
                    + "acknowledged as stored", records.size(), shard, e);
        }
        settleBarriers(written);
    }

    /** Settles the batch's callbacks: run when it was written, else refused. */
    private void settleBarriers(boolean written) {
        Runnable barrier;
        while ((barrier = barriers.pollFirst()) != null) {
            settleSafely(barrier, written);
        }
    }

    /** Refuses the callback of every event still queued; after the writer ended, from any thread. */
    private void refuseQueued() {
        Object event;
        while ((event = events.poll()) != null) {
            if (event instanceof Barrier barrier) {
                settleSafely(barrier.callback(), false);
            }
        }
    }

    private void settleSafely(Runnable callback, boolean written) {
        if (!written && failure != null) {
            count(BrokerCounter.STATE_WRITES_REFUSED, 1);
        }
        try {
            if (written) {
                callback.run();
            } else {
                Receipt.refuse(callback);
            }
        } catch (RuntimeException e) {
            LOG.error("a state-journal callback failed", e);
        }
    }

    /** Tombstones every key of the session: those on disk, and those set earlier in this batch. */
    private void endSession(String clientId, LinkedHashMap<StateKey, Object> intents) {
        for (Iterator<Map.Entry<StateKey, Object>> it = intents.entrySet().iterator(); it.hasNext(); ) {
            StateKey key = it.next().getKey();
            if (key.type() != StateKey.RETAINED && key.type() != StateKey.MESSAGE && key.name().equals(clientId)) {
                it.remove(); // re-added below as a tombstone if it reached the disk
            }
        }
        Set<StateKey> onDisk = keysOnDisk.get(clientId);
        if (onDisk != null) {
            for (StateKey key : new ArrayList<>(onDisk)) {
                intents.put(key, TOMBSTONE);
            }
        }
    }

    private void toRecords(StateKey key, Object value, long now, List<Record> out) {
        boolean onDisk = isOnDisk(key);
        if (value == TOMBSTONE) {
            if (onDisk || key.type() == StateKey.RETAINED) {
                out.add(Record.of(key.bytes(), null, now));
                forgetOnDisk(key, now, out);
            }
            return;
        }
        out.add(Record.of(key.bytes(), encode(key, value, onDisk, now, out), now));
        rememberOnDisk(key);
    }

    private byte[] encode(StateKey key, Object value, boolean onDisk, long now, List<Record> out) {
        if (value instanceof SessionSnapshot snapshot) {
            return StateCodec.session(snapshot);
        }
        if (value instanceof StoredDelivery delivery) {
            long messageId = referenceMessage(delivery.delivery().message(), !onDisk, now, out);
            deliveryMessages.put(key, messageId);
            return StateCodec.delivery(delivery, messageId);
        }
        if (value instanceof Message retained) {
            return StateCodec.message(retained);
        }
        return new byte[] {StateCodec.VERSION}; // an inbound QoS 2 id: the key is the information
    }

    /** The id of the message record for {@code message}, writing the record if it is new. */
    private long referenceMessage(Message message, boolean newReference, long now, List<Record> out) {
        Long id = messageIds.get(message);
        if (id == null) {
            id = nextMessageId++;
            messageIds.put(message, id);
            messageRefs.put(id, new MessageRef(message, 0));
            out.add(Record.of(StateKey.message(id).bytes(), StateCodec.message(message), now));
        }
        if (newReference) {
            messageRefs.get(id).references++;
        }
        return id;
    }

    private boolean isOnDisk(StateKey key) {
        Set<StateKey> keys = keysOnDisk.get(key.name());
        return keys != null && keys.contains(key);
    }

    private void rememberOnDisk(StateKey key) {
        if (key.type() == StateKey.SESSION || key.type() == StateKey.DELIVERY || key.type() == StateKey.QOS2) {
            keysOnDisk.computeIfAbsent(key.name(), k -> new HashSet<>()).add(key);
        }
    }

    private void forgetOnDisk(StateKey key, long now, List<Record> out) {
        Set<StateKey> keys = keysOnDisk.get(key.name());
        if (keys != null && keys.remove(key) && keys.isEmpty()) {
            keysOnDisk.remove(key.name());
        }
        Long messageId = deliveryMessages.remove(key);
        if (messageId == null) {
            return;
        }
        MessageRef ref = messageRefs.get(messageId);
        if (ref != null && --ref.references <= 0) {
            messageRefs.remove(messageId);
            messageIds.remove(ref.message);
            out.add(Record.of(StateKey.message(messageId).bytes(), null, now));
        }
    }

    /**
     * Why the journal refuses every state change, or null while it writes: its writer thread
     * failed (the cause is given) and is not restarted (see the class comment). Any thread.
     */
    public String problem() {
        Throwable cause = failure;
        return cause == null ? null : "the state journal's writer thread failed on " + cause
                + "; state changes and the PUBLISHes waiting for them are refused until the broker is restarted";
    }

    /**
     * Counts failures and refusals in {@code broker} from now on, adding those counted so far
     * (the writer starts before the broker exists).
     */
    public synchronized void countIn(BrokerMetrics broker) {
        broker.add(BrokerCounter.STATE_JOURNAL_FAILURES, metrics.get(BrokerCounter.STATE_JOURNAL_FAILURES));
        broker.add(BrokerCounter.STATE_WRITES_REFUSED, metrics.get(BrokerCounter.STATE_WRITES_REFUSED));
        metrics = broker;
    }

    private synchronized void count(BrokerCounter counter, long delta) {
        metrics.add(counter, delta);
    }

    /** Writes everything enqueued so far, then stops the writer thread. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(writer);
        try {
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
