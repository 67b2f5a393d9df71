package io.sluice.storage.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.storage.CleanupPolicy;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogCursor;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.LogSettings;
import io.sluice.storage.Record;
import io.sluice.storage.segment.SegmentLog;
import io.sluice.storage.segment.SharedAppender;

/**
 * Consumer-group offsets, kept as Kafka keeps them: in a compacted log of their own
 * ({@code <dir>/group-offsets/}, flush {@code always}, so a commit is fsynced before it returns and
 * concurrent commits share the fsync), read back in full at open into a map.
 *
 * <h2>Record layout</h2>
 * key = UTF-8 of {@code <group> NUL <shard>}; value = the committed offset as 8 bytes big-endian;
 * a tombstone (no value) forgets the pair when its shard is deleted. The latest record per key wins.
 */
final class GroupOffsets implements AutoCloseable {
    static final String DIRECTORY = "group-offsets";
    private static final LogSettings SETTINGS = LogSettings.builder()
            .segmentBytes(64 * 1024 * 1024)
            .flush(FlushPolicy.ALWAYS)
            .cleanupPolicy(CleanupPolicy.COMPACT)
            .retentionMs(LogSettings.UNLIMITED)
            .build();

    /** A committed offset and where its record sits in the log, so a late writer cannot win a race. */
    private record Committed(long logOffset, long offset) {
    }

    private final SegmentLog log;
    private final SharedAppender appender;
    private final Map<String, Map<String, Committed>> byGroup = new ConcurrentHashMap<>();

    GroupOffsets(Path dir, LogScheduler scheduler, boolean enableCache) {
        this.log = SegmentLog.open(dir.resolve(DIRECTORY), "group-offsets", SETTINGS, scheduler);
        this.appender = new SharedAppender(log);
        try (LogCursor cursor = log.cursor(log.logStartOffset())) {
            while (cursor.next()) {
                String[] parts = new String(cursor.key(), StandardCharsets.UTF_8).split("\0", 2);
                if (cursor.isTombstone()) {
                    forget(parts[0], parts[1]);
                } else {
                    remember(parts[0], parts[1], new Committed(cursor.offset(), ByteBuffer.wrap(cursor.value()).getLong()));
                }
            }
        }
    }

    void commit(String group, String shard, long offset) {
        if (group == null || group.isEmpty() || group.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("consumer group name must be non-empty and without NUL, got '" + group + "'");
        }
        byte[] value = ByteBuffer.allocate(Long.BYTES).putLong(offset).array();
        long logOffset = appender.append(Record.of(key(group, shard), value, System.currentTimeMillis()));
        remember(group, shard, new Committed(logOffset, offset));
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
        List<Record> tombstones = new ArrayList<>();
        for (Map.Entry<String, Map<String, Committed>> group : byGroup.entrySet()) {
            if (group.getValue().containsKey(shard)) {
                tombstones.add(Record.of(key(group.getKey(), shard), null, System.currentTimeMillis()));
            }
        }
        if (!tombstones.isEmpty()) {
            appender.append(tombstones);
        }
        for (Map<String, Committed> shards : byGroup.values()) {
            shards.remove(shard);
        }
    }

    private void remember(String group, String shard, Committed committed) {
        byGroup.computeIfAbsent(group, g -> new ConcurrentHashMap<>())
                .merge(shard, committed, (old, now) -> now.logOffset() > old.logOffset() ? now : old);
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

    @Override
    public void close() {
        log.close();
    }
}
