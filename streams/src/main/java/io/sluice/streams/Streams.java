package io.sluice.streams;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.LogSettings;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageAdapter;
import io.sluice.storage.TopicRouter;
import io.sluice.streams.internal.CreatedStreams;
import io.sluice.streams.internal.ProducerIds;
import io.sluice.streams.internal.ProducerStates;
import io.sluice.streams.internal.StateLog;
import io.sluice.streams.internal.StreamAppender;

/**
 * Every stream of the server, on one storage adapter: those of the configuration file and those
 * created at run time (Kafka CreateTopics), which are remembered across restarts.
 *
 * <h2>Configured and created streams</h2>
 * <ul>
 *  <li>A configured stream exists while the configuration file defines it; it cannot be deleted at
 *      run time ({@link StreamException.Reason#CONFIGURED}).</li>
 *  <li>A created stream exists until it is deleted at run time; deleting it removes its partitions,
 *      their records and the consumer-group offsets committed for them.</li>
 *  <li>When the file comes to define a stream that was created at run time, the file's definition
 *      takes over, with the records already there.</li>
 *  <li>A stream removed from the file keeps its partitions on disk, unused (a warning names them
 *      at start-up); defining or creating a stream of that name again serves them again.</li>
 *  <li>Partitions may be added, never taken away: a definition with fewer partitions than the disk
 *      holds, or another engine, is refused ({@link InvalidStreamException}). The storage settings
 *      of existing partitions stay as they were created (a warning says when the file differs).</li>
 * </ul>
 * Thread-safe. Creation and deletion are serialised.
 */
public final class Streams implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Streams.class);
    private static final Pattern PARTITION_SHARD = Pattern.compile("(.+)_(\\d+)");

    private final StorageAdapter adapter;
    /** The state-log key prefix of consumer groups' saved states. */
    private static final String GROUP_STATE = "groups/";
    private final StateLog state;
    private final CreatedStreams created;
    private final ProducerIds producerIds;
    private final Map<String, Stream> streams = new ConcurrentHashMap<>();
    private final List<AppendListener> appendListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<Stream>> createdListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<Stream>> deletedListeners = new CopyOnWriteArrayList<>();

    private Streams(StorageAdapter adapter) {
        this.adapter = adapter;
        this.state = new StateLog(adapter);
        this.created = new CreatedStreams(state);
        this.producerIds = new ProducerIds(state);
    }

    /**
     * Opens the configured streams and those created before, creating partitions that are missing.
     * The adapter stays the caller's: close it after this.
     *
     * @throws InvalidStreamException when a configured stream does not fit what is on disk
     */
    public static Streams open(StorageAdapter adapter, List<StreamSettings> configured) {
        Streams streams = new Streams(adapter);
        try {
            Map<String, StreamSettings> runtime = streams.created.all();
            for (StreamSettings settings : configured) {
                if (runtime.remove(settings.name()) != null) {
                    LOG.info("stream '{}' was created at run time and is now defined in the configuration, which takes over",
                            settings.name());
                    streams.created.remove(settings.name());
                }
                streams.start(settings, true);
            }
            for (StreamSettings settings : runtime.values()) {
                streams.start(settings, false);
            }
        } catch (RuntimeException e) {
            streams.close();
            throw e;
        }
        streams.warnAboutUnusedPartitions();
        return streams;
    }

    private Stream start(StreamSettings settings, boolean configured) {
        int onDisk = checkAgainstDisk(settings);
        ShardSettings shardSettings = new ShardSettings(settings.engine(), settings.log());
        for (int p = onDisk; p < settings.partitions(); p++) {
            adapter.createShard(TopicRouter.shardName(settings.name(), p), shardSettings);
        }
        Stream stream = new Stream(settings, configured, adapter);
        ProducerStates[] producers = new ProducerStates[stream.partitions()];
        long[] snapshotOffsets = new long[stream.partitions()];
        for (int p = 0; p < producers.length; p++) {
            producers[p] = new ProducerStates();
            snapshotOffsets[p] = producers[p].rebuild(adapter, stream.shard(p),
                    state.get(StreamAppender.snapshotKey(stream.shard(p))));
        }
        stream.start(new StreamAppender(stream, adapter, state, producers, snapshotOffsets, appendListeners,
                stream.counters()));
        streams.put(settings.name(), stream);
        LOG.info("stream '{}' appends MQTT topic '{}' to {} partitions ({}{})", settings.name(), settings.topic(),
                settings.partitions(), settings.engine().configName(), configured ? "" : ", created at run time");
        return stream;
    }

    /** Returns how many partitions the disk holds, after checking the definition can take them over. */
    private int checkAgainstDisk(StreamSettings settings) {
        int onDisk = 0;
        while (adapter.shardExists(TopicRouter.shardName(settings.name(), onDisk))) {
            onDisk++;
        }
        if (onDisk > settings.partitions()) {
            throw new InvalidStreamException(settings.name(), "partitions", "is " + settings.partitions()
                    + " but the stream has " + onDisk + " partitions on disk: partitions can be added, never taken away");
        }
        if (onDisk > 0) {
            ShardSettings existing = adapter.shardSettings(TopicRouter.shardName(settings.name(), 0));
            if (existing.engine() != settings.engine()) {
                throw new InvalidStreamException(settings.name(), "engine", "is " + settings.engine().configName()
                        + " but the stream's partitions on disk use " + existing.engine().configName()
                        + ": the engine of a stream cannot change");
            }
            warnIfDifferent(settings, existing.log());
        }
        return onDisk;
    }

    private static void warnIfDifferent(StreamSettings settings, LogSettings existing) {
        Map<String, String> wanted = settings.log().toMap();
        List<String> differ = new ArrayList<>();
        existing.toMap().forEach((key, value) -> {
            if (!value.equals(wanted.get(key))) {
                differ.add(key + " " + value + " (configured " + wanted.get(key) + ")");
            }
        });
        if (!differ.isEmpty()) {
            LOG.warn("stream '{}': its existing partitions keep the storage settings they were created with: {}",
                    settings.name(), String.join(", ", differ));
        }
    }

    private void warnAboutUnusedPartitions() {
        Set<String> unused = new TreeSet<>();
        for (String shard : adapter.shards()) {
            Matcher m = PARTITION_SHARD.matcher(shard);
            if (m.matches() && !streams.containsKey(m.group(1))) {
                unused.add(shard);
            }
        }
        if (!unused.isEmpty()) {
            LOG.warn("partitions of streams that are no longer defined stay on disk, unused: {}; defining or creating"
                    + " a stream of that name serves them again", unused);
        }
    }

    /** The stream called {@code name}, or null. */
    public Stream get(String name) {
        return streams.get(name);
    }

    /** Every stream, in no particular order. */
    public Collection<Stream> all() {
        return List.copyOf(streams.values());
    }

    /**
     * Creates a stream at run time; it is remembered across restarts. Partitions of an earlier
     * stream of the same name still on disk are taken over.
     *
     * @throws StreamException        {@link StreamException.Reason#EXISTS} when the name is taken
     * @throws InvalidStreamException when partitions on disk do not fit
     */
    public synchronized Stream create(StreamSettings settings) {
        if (streams.containsKey(settings.name())) {
            throw new StreamException(StreamException.Reason.EXISTS, settings.name(), "already exists");
        }
        checkAgainstDisk(settings);
        created.put(settings);
        Stream stream;
        try {
            stream = start(settings, false);
        } catch (RuntimeException e) {
            created.remove(settings.name());
            throw e;
        }
        for (Consumer<Stream> listener : createdListeners) {
            listener.accept(stream);
        }
        return stream;
    }

    /**
     * Deletes a stream created at run time: stops it, then removes its partitions, their records
     * and their consumer-group offsets.
     *
     * @throws StreamException {@link StreamException.Reason#UNKNOWN} or {@link StreamException.Reason#CONFIGURED}
     */
    public synchronized void delete(String name) {
        Stream stream = streams.get(name);
        if (stream == null) {
            throw new StreamException(StreamException.Reason.UNKNOWN, name, "does not exist");
        }
        if (stream.isConfigured()) {
            throw new StreamException(StreamException.Reason.CONFIGURED, name,
                    "is defined in the configuration file; remove it there");
        }
        streams.remove(name);
        for (Consumer<Stream> listener : deletedListeners) {
            listener.accept(stream);
        }
        stream.close();
        created.remove(name);
        for (int p = 0; p < stream.partitions(); p++) {
            adapter.deleteShard(stream.shard(p));
            state.remove(StreamAppender.snapshotKey(stream.shard(p)));
        }
        LOG.info("stream '{}' deleted with its {} partitions", name, stream.partitions());
    }

    /** Every consumer group with an offset committed on some stream. */
    public Set<String> groups() {
        return adapter.groups();
    }

    /** The consumer groups' saved states (the Kafka listener's), by group id; see {@link #saveGroupState}. */
    public Map<String, byte[]> groupStates() {
        return state.entries(GROUP_STATE);
    }

    /**
     * Saves the state of consumer group {@code groupId} (opaque bytes, the Kafka listener's) beside the
     * streams' own state, fsynced before this returns, so that the group survives a restart.
     */
    public void saveGroupState(String groupId, byte[] groupState) {
        state.put(GROUP_STATE + groupId, groupState);
    }

    /** A producer id never handed out before, not even before a restart. */
    public long newProducerId() {
        return producerIds.next();
    }

    /** Adds a listener told of every append; see {@link AppendListener}. */
    public void addAppendListener(AppendListener listener) {
        appendListeners.add(listener);
    }

    public void removeAppendListener(AppendListener listener) {
        appendListeners.remove(listener);
    }

    /** Told of each stream created at run time, after it started. */
    public void onCreated(Consumer<Stream> listener) {
        createdListeners.add(listener);
    }

    /** Told of each stream deleted at run time, before it stops. */
    public void onDeleted(Consumer<Stream> listener) {
        deletedListeners.add(listener);
    }

    /** Appends everything queued, writes the producer-state snapshots and stops every stream. */
    @Override
    public void close() {
        for (Stream stream : streams.values()) {
            try {
                stream.close();
            } catch (RuntimeException e) {
                LOG.error("stream '{}' failed to close", stream.name(), e);
            }
        }
        streams.clear();
    }
}
