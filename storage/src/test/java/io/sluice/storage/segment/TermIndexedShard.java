package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.sluice.storage.LogScheduler;
import io.sluice.storage.Record;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StoredRecord;

/**
 * A segment shard for the key and tag index tests: records written with the tags those tests look
 * up, reopening, the index files on disk, and a full scan to compare lookups with. Maintenance runs
 * once an hour, so compaction happens only when a test asks for it.
 */
final class TermIndexedShard implements AutoCloseable {
    /** Record i's tags are "t<i % TAGS>", and "tenth" too for every tenth record. */
    static final int TAGS = 5;

    private final String name;
    private final ShardSettings settings;
    private final Path dir;
    private final LogScheduler scheduler;
    private SegmentShard shard;

    TermIndexedShard(String name, ShardSettings settings, Path dir) {
        this.name = name;
        this.settings = settings;
        this.dir = dir;
        this.scheduler = new LogScheduler(name, 1, 3_600_000);
        this.shard = SegmentShard.open(name, settings, dir, scheduler);
    }

    SegmentShard shard() {
        return shard;
    }

    SegmentLog log() {
        return (SegmentLog) shard.log();
    }

    void reopen() {
        shard.close();
        shard = SegmentShard.open(name, settings, dir, scheduler);
    }

    /** Writes record {@code i} with {@code key}, a value that starts "value i ", and its tags. */
    void write(int i, String key) {
        List<String> tags = i % 10 == 0 ? List.of("t" + i % TAGS, "tenth") : List.of("t" + i % TAGS);
        shard.write(new Record(utf8(key), utf8("value " + i + " ".repeat(40)), i, tags));
    }

    /** Every record of the shard, by offset: what the index must agree with. */
    List<StoredRecord> scan() {
        List<StoredRecord> all = new ArrayList<>();
        for (long offset = shard.startOffset(); offset < shard.endOffset(); ) {
            List<StoredRecord> chunk = shard.readByOffset(offset, 1000, 1 << 20);
            all.addAll(chunk);
            offset = chunk.get(chunk.size() - 1).offset() + 1;
        }
        return all;
    }

    /** The sealed segments' index files, in offset order. */
    List<Path> indexFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(TermIndexFile.SUFFIX)).sorted().toList();
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static List<Long> offsets(List<StoredRecord> records) {
        return records.stream().map(StoredRecord::offset).toList();
    }

    @Override
    public void close() {
        shard.close();
        scheduler.close();
    }
}
