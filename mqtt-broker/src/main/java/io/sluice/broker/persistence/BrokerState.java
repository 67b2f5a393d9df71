package io.sluice.broker.persistence;

import io.sluice.broker.Broker;
import io.sluice.broker.message.Message;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.retain.RetainedJournal;
import io.sluice.broker.session.Session;
import io.sluice.broker.session.SessionJournal;
import io.sluice.broker.session.SessionRegistry;
import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.LogSettings;
import io.sluice.storage.Record;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The broker's durable state: a compacted shard of the storage adapter ({@code broker-state}),
 * read back at start-up and written incrementally by a {@link StateJournal} while running.
 * {@link #open} loads the state; {@link #restoreInto} puts it into a broker built with this
 * state's journals; {@link #close} writes what is pending and closes the shard cleanly, so the
 * next start skips recovery.
 */
public final class BrokerState implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerState.class);
    static final String SHARD = "broker-state";
    /** Small segments so that compaction, which never touches the active segment, runs soon. */
    private static final int SEGMENT_BYTES = 16 << 20;
    private static final long SEGMENT_MS = 3_600_000;
    /** How long a tombstone is kept after compaction, so a reader that is behind still sees the delete. */
    private static final long TOMBSTONE_RETENTION_MS = 3_600_000;

    private final StorageAdapter storage;
    private final Path dir;
    private final StateJournal journal;
    private final StateLoader.LoadedState loaded;
    private final long loadMillis;

    private BrokerState(StorageAdapter storage, Path dir, StateJournal journal, StateLoader.LoadedState loaded,
                        long loadMillis) {
        this.storage = storage;
        this.dir = dir;
        this.journal = journal;
        this.loaded = loaded;
        this.loadMillis = loadMillis;
    }

    /** Opens (or creates) the state under {@code settings.dir()} and reads it. */
    public static BrokerState open(PersistenceSettings settings) {
        long start = System.nanoTime();
        StorageAdapter storage = StorageAdapter.open(settings.dir());
        try {
            if (!storage.shardExists(SHARD)) {
                storage.createShard(SHARD, ShardSettings.segment(logSettings(settings)));
            }
            StateLoader.LoadedState loaded = StateLoader.load(storage, SHARD);
            deleteGarbage(storage, loaded.garbage());
            StateJournal journal = new StateJournal(storage, SHARD, loaded.seeds());
            return new BrokerState(storage, settings.dir(), journal, loaded, (System.nanoTime() - start) / 1_000_000);
        } catch (RuntimeException e) {
            storage.close();
            throw new IllegalStateException("cannot open the broker state in " + settings.dir() + ": "
                    + e.getMessage(), e);
        }
    }

    private static LogSettings logSettings(PersistenceSettings settings) {
        return LogSettings.builder()
                .cleanupPolicy(CleanupPolicy.COMPACT)
                .retentionMs(LogSettings.UNLIMITED)
                .segmentBytes(SEGMENT_BYTES)
                .segmentMs(SEGMENT_MS)
                .deleteRetentionMs(TOMBSTONE_RETENTION_MS)
                .flush(settings.flush())
                .flushIntervalMs(settings.flushIntervalMs())
                .build();
    }

    private static void deleteGarbage(StorageAdapter storage, List<StateKey> garbage) {
        if (garbage.isEmpty()) {
            return;
        }
        long now = System.currentTimeMillis();
        List<Record> tombstones = new ArrayList<>(garbage.size());
        for (StateKey key : garbage) {
            tombstones.add(Record.of(key.bytes(), null, now));
        }
        storage.batchWrite(SHARD, tombstones);
        LOG.info("broker state: deleted {} records nothing refers to any more", garbage.size());
    }

    public SessionJournal sessionJournal() {
        return journal;
    }

    public RetainedJournal retainedJournal() {
        return journal;
    }

    /** The journal, for acknowledgements that wait until state is written. */
    public StateJournal journal() {
        return journal;
    }

    /**
     * Why the broker state takes no changes now, or null while it does: its journal's writer thread
     * failed (the cause and the state directory are given). Any thread.
     */
    public String problem() {
        String problem = journal.problem();
        return problem == null ? null : "broker state in " + dir + ": " + problem;
    }

    /**
     * Puts the loaded retained messages and sessions into {@code broker}, which must have been
     * built with this state's journals, then resumes session expiry and delayed wills.
     */
    public void restoreInto(Broker broker) {
        long now = System.currentTimeMillis();
        for (Message message : loaded.retained()) {
            broker.router().retained().restore(message);
        }
        SessionRegistry registry = broker.sessions();
        List<Session> restored = new ArrayList<>(loaded.sessions().size());
        for (StateLoader.LoadedSession s : loaded.sessions()) {
            restored.add(registry.restore(s.snapshot(), s.deliveries(), s.inboundQos2()));
        }
        for (int i = 0; i < restored.size(); i++) {
            registry.resumeTimers(restored.get(i), loaded.sessions().get(i).snapshot(), now);
        }
        broker.metrics().add(BrokerCounter.STATE_RECORDS_UNREADABLE, loaded.skipped());
        journal.countIn(broker.metrics());
        int retained = broker.router().retained().purgeExpired(now);
        LOG.info("broker state: {} retained messages and {} persistent sessions restored from {} records in {} ms"
                        + "{}", retained, restored.size(), loaded.records(), loadMillis,
                loaded.skipped() > 0 ? " (" + loaded.skipped() + " damaged records skipped)" : "");
    }

    @Override
    public void close() {
        journal.close();
        storage.close();
    }
}
