package io.sluice.storage.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogCursor;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.LogSettings;
import io.sluice.storage.Record;
import io.sluice.storage.StorageException;
import io.sluice.storage.segment.SegmentLog;
import io.sluice.storage.segment.SharedAppender;

/**
 * Consumer-group offsets, kept as Kafka keeps them: in a compacted log of their own
 * ({@code <dir>/group-offsets/}, flush {@code always}, so a commit is fsynced before it returns and
 * concurrent commits share the fsync), read back in full at open into a map.
 *
 * <h2>Record layout</h2>
 * key = UTF-8 of {@code <group> NUL <shard>}; value = the committed offset as 8 bytes big-endian,
 * followed, for a commit that went through the cache, by its commit sequence (8 bytes); a tombstone
 * (no value) forgets the pair when its shard is deleted. The latest record per key wins.
 *
 * <h2>{@code enable_cache = true}</h2>
 * A commit is acknowledged once it is in the {@link GroupOffsetCache} (a write-ahead-log write
 * without fsync) and written through to the log on a flusher thread, coalesced per key. Every
 * commit takes a sequence number; at open a cached commit newer than the log's record for its key
 * wins and is written through before the adapter serves anyone. A killed process therefore loses
 * nothing; a power cut or kernel crash can lose the commits acknowledged since the last
 * write-through, moving a group back to an offset it committed earlier, never forward. Opened
 * without the cache, a cache left by an earlier run is written through and then removed.
 */
final class GroupOffsets implements AutoCloseable {
    static final String DIRECTORY = "group-offsets";
    private static final Logger LOG = LoggerFactory.getLogger(GroupOffsets.class);
    private static final LogSettings SETTINGS = LogSettings.builder()
            .segmentBytes(64 * 1024 * 1024)
            .flush(FlushPolicy.ALWAYS)
            .cleanupPolicy(CleanupPolicy.COMPACT)
            .retentionMs(LogSettings.UNLIMITED)
            .build();

    /**
     * A committed offset and its version, so a late writer cannot win a race: the position of its
     * record in the log, or with the cache its commit sequence.
     */
    private record Committed(long version, long offset) {
    }

    private final Path dir;
    private final SegmentLog log;
    private final SharedAppender appender;
    private final LogScheduler scheduler;
    private final GroupOffsetCache cache;
    private final Map<String, Map<String, Committed>> byGroup = new ConcurrentHashMap<>();
    private final AtomicLong sequence = new AtomicLong();
    private final Map<String, Committed> unwritten = new ConcurrentHashMap<>();
    private final AtomicBoolean writeThroughScheduled = new AtomicBoolean();
    private final Object writeThroughLock = new Object();

    GroupOffsets(Path dir, LogScheduler scheduler, boolean enableCache) {
        this.dir = dir;
        this.scheduler = scheduler;
        this.log = SegmentLog.open(dir.resolve(DIRECTORY), "group-offsets", SETTINGS, scheduler);
        this.appender = new SharedAppender(log);
        Map<String, Long> logSequences = load(enableCache);
        Path cacheDir = dir.resolve(GroupOffsetCache.DIRECTORY);
        GroupOffsetCache opened = enableCache || Files.isDirectory(cacheDir) ? GroupOffsetCache.open(cacheDir) : null;
        try {
            if (opened != null) {
                overlay(opened, logSequences);
            }
            writeThrough();
        } catch (RuntimeException e) {
            if (opened != null) {
                opened.close();
            }
            log.close();
            throw e;
        }
        if (opened != null && !enableCache) {
            opened.close();
            removeCache(cacheDir);
            byGroup.clear();
            load(false);
            this.cache = null;
        } else {
            this.cache = opened;
        }
    }

    /** Reads the log; returns each key's commit sequence (0 for a record written without the cache). */
    private Map<String, Long> load(boolean bySequence) {
        Map<String, Long> sequences = new HashMap<>();
        try (LogCursor cursor = log.cursor(log.logStartOffset())) {
            while (cursor.next()) {
                String key = new String(cursor.key(), StandardCharsets.UTF_8);
                String[] parts = key.split("\0", 2);
                if (cursor.isTombstone()) {
                    forget(parts[0], parts[1]);
                    sequences.remove(key);
                    continue;
                }
                ByteBuffer value = ByteBuffer.wrap(cursor.value());
                long offset = value.getLong();
                long seq = value.remaining() >= Long.BYTES ? value.getLong() : 0;
                sequences.put(key, seq);
                sequence.accumulateAndGet(seq, Math::max);
                remember(parts[0], parts[1], new Committed(bySequence ? seq : cursor.offset(), offset));
            }
        }
        return sequences;
    }

    /** Cached commits newer than the log's win, and are queued for the log. */
    private void overlay(GroupOffsetCache opened, Map<String, Long> logSequences) {
        opened.forEach((key, offset, seq) -> {
            String name = new String(key, StandardCharsets.UTF_8);
            Long logged = logSequences.get(name);
            if (logged != null && seq <= logged) {
                return;
            }
            String[] parts = name.split("\0", 2);
            long version = sequence.accumulateAndGet(seq, Math::max);
            Committed committed = new Committed(version, offset);
            byGroup.computeIfAbsent(parts[0], g -> new ConcurrentHashMap<>()).put(parts[1], committed);
            unwritten.put(name, committed);
        });
    }

    void commit(String group, String shard, long offset) {
        if (group == null || group.isEmpty() || group.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("consumer group name must be non-empty and without NUL, got '" + group + "'");
        }
        if (cache == null) {
            byte[] value = ByteBuffer.allocate(Long.BYTES).putLong(offset).array();
            long logOffset = appender.append(Record.of(key(group, shard), value, System.currentTimeMillis()));
            remember(group, shard, new Committed(logOffset, offset));
            return;
        }
        Committed committed = new Committed(sequence.incrementAndGet(), offset);
        cache.put(key(group, shard), offset, committed.version());
        remember(group, shard, committed);
        unwritten.merge(group + '\0' + shard, committed, (old, now) -> now.version() > old.version() ? now : old);
        if (writeThroughScheduled.compareAndSet(false, true)) {
            scheduler.flushSoon(this::writeThroughQuietly);
        }
    }

    private void writeThroughQuietly() {
        try {
            writeThrough();
        } catch (RuntimeException e) {
            LOG.error("Writing cached consumer-group offsets through to {} failed; they stay in the cache {} and are "
                    + "written at the next open", log.directory(), dir.resolve(GroupOffsetCache.DIRECTORY), e);
        }
    }

    /** Appends the latest unwritten commit of each key to the log (fsynced: flush = always). */
    private void writeThrough() {
        synchronized (writeThroughLock) {
            writeThroughScheduled.set(false);
            List<Record> records = new ArrayList<>();
            for (Map.Entry<String, Committed> entry : unwritten.entrySet()) {
                if (unwritten.remove(entry.getKey(), entry.getValue())) {
                    byte[] value = ByteBuffer.allocate(2 * Long.BYTES).putLong(entry.getValue().offset())
                            .putLong(entry.getValue().version()).array();
                    records.add(Record.of(entry.getKey().getBytes(StandardCharsets.UTF_8), value, System.currentTimeMillis()));
                }
            }
            if (!records.isEmpty()) {
                appender.append(records);
            }
        }
    }

    OptionalLong get(String group, String shard) {
        Map<String, Committed> shards = byGroup.get(group);
        Committed committed = shards == null ? null : shards.get(shard);
        return committed == null ? OptionalLong.empty() : OptionalLong.of(committed.offset());
    }

    /** Groups with at least one committed offset, sorted. */
    Set<String> groups() {
        Set<String> groups = new TreeSet<>();
        byGroup.forEach((group, shards) -> {
            if (!shards.isEmpty()) {
                groups.add(group);
            }
        });
        return groups;
    }

    /** Forgets every group's offset for a deleted shard, durably. */
    void removeShard(String shard) {
        synchronized (writeThroughLock) {
            unwritten.keySet().removeIf(key -> key.endsWith('\0' + shard));
            List<Record> tombstones = new ArrayList<>();
            for (Map.Entry<String, Map<String, Committed>> group : byGroup.entrySet()) {
                if (group.getValue().containsKey(shard)) {
                    tombstones.add(Record.of(key(group.getKey(), shard), null, System.currentTimeMillis()));
                }
            }
            if (!tombstones.isEmpty()) {
                appender.append(tombstones);
            }
            for (Record tombstone : tombstones) {
                if (cache != null) {
                    cache.delete(tombstone.key());
                }
            }
            for (Map<String, Committed> shards : byGroup.values()) {
                shards.remove(shard);
            }
        }
    }

    private void remember(String group, String shard, Committed committed) {
        byGroup.computeIfAbsent(group, g -> new ConcurrentHashMap<>())
                .merge(shard, committed, (old, now) -> now.version() > old.version() ? now : old);
    }

    private void forget(String group, String shard) {
        Map<String, Committed> shards = byGroup.get(group);
        if (shards != null) {
            shards.remove(shard);
        }
    }

    private static byte[] key(String group, String shard) {
        return (group + '\0' + shard).getBytes(StandardCharsets.UTF_8);
    }

    private static void removeCache(Path cacheDir) {
        try {
            ShardCatalog.deleteTree(cacheDir);
        } catch (IOException e) {
            throw new StorageException("removing the group-offset cache " + cacheDir
                    + " (its commits are in the offsets log) failed: " + e.getMessage(), e);
        }
    }

    /** Writes the cached commits through, then closes the cache and the log. */
    @Override
    public void close() {
        try {
            writeThrough();
        } finally {
            if (cache != null) {
                cache.close();
            }
            log.close();
        }
    }
}
