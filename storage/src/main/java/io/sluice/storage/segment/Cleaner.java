package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.StorageCounter;

/**
 * Compaction of a keyed log, as Kafka's log cleaner does it: keep the latest record of every key.
 *
 * <ol>
 *  <li>The cleanable part of the log is every segment below the active one and below the recovery
 *      point (so only fsynced data is rewritten). Its dirty part starts at the cleaner checkpoint.</li>
 *  <li>A map from key to latest offset is built over the dirty segments (up to
 *      {@value #MAX_MAP_ENTRIES} keys, whole segments; a larger backlog takes several passes).</li>
 *  <li>Every cleanable segment up to the end of the mapped part is rewritten, in groups of
 *      consecutive segments that fit one segment: a record is kept unless the map holds a later
 *      offset for its key, or it is a tombstone (key, no value) whose timestamp is older than
 *      {@code delete_retention_ms}. Kept records are copied byte for byte; each batch keeps its base
 *      offset and last offset delta, and when a group's last records are all dropped an empty
 *      batch at the group's last offset keeps the group's offset range, so offsets never move.</li>
 *  <li>The crash-safe swap, per group: write {@code <base>.log.cleaned} (and indexes), fsync,
 *      rename to {@code .swap} and fsync the directory (from here on the result counts), rename the
 *      replaced segments to {@code .deleted}, rename the {@code .swap} files to their final names.
 *      {@link LogLoader} finishes or discards each of these states after a crash.</li>
 *  <li>The cleaner checkpoint moves to the end of the mapped part.</li>
 * </ol>
 * Runs in the log's maintenance pass on the scheduler's cleaner thread (or for a caller of
 * {@link SegmentLog#compact}), one pass at a time; the writer keeps appending to the active segment
 * meanwhile, and readers keep reading the old segments they hold.
 */
final class Cleaner {
    static final int MAX_MAP_ENTRIES = 1_000_000;
    private static final Logger LOG = LoggerFactory.getLogger(Cleaner.class);

    private final SegmentLog log;
    private final RecordView record = new RecordView();
    private RecordBatchBuilder output = new RecordBatchBuilder(SegmentLog.MAX_BATCH_BYTES);

    Cleaner(SegmentLog log) {
        this.log = log;
    }

    /** Segments the cleaner may rewrite: inactive, fully flushed and below the high watermark. */
    private static List<Segment> cleanable(SegmentLog log) {
        return log.segments().below(Math.min(log.recoveryPoint(), log.highWatermark()));
    }

    /** Share of the cleanable bytes that lie at or past the cleaner checkpoint. */
    static double dirtyRatio(SegmentLog log) {
        long total = 0;
        long dirty = 0;
        long firstDirty = Math.max(log.cleanerCheckpoint(), log.logStartOffset());
        for (Segment segment : cleanable(log)) {
            total += segment.size();
            if (segment.nextOffset() > firstDirty) {
                dirty += segment.size();
            }
        }
        return total == 0 ? 0 : (double) dirty / total;
    }

    /** One cleaning pass; returns records removed. */
    long clean(long nowMs) throws IOException {
        List<Segment> cleanable = retain(cleanable(log));
        try {
            if (cleanable.isEmpty()) {
                return 0;
            }
            long firstDirty = Math.max(log.cleanerCheckpoint(), log.logStartOffset());
            Map<ByteBuffer, Long> latest = new HashMap<>();
            int mapped = buildOffsetMap(cleanable, firstDirty, latest);
            List<Segment> rewrite = mapped > 0 ? cleanable.subList(0, mapped) : cleanable;
            long dirtyEnd = mapped > 0 ? nextBase(cleanable, mapped - 1) : firstDirty;
            long tombstoneHorizon = nowMs - log.settings().deleteRetentionMs();
            long removed = 0;
            for (List<Segment> group : groups(rewrite)) {
                removed += cleanGroup(group, latest, tombstoneHorizon, dirtyEnd);
            }
            log.advanceCleanerCheckpoint(dirtyEnd);
            log.counters().increment(StorageCounter.CLEANER_RUNS);
            log.counters().add(StorageCounter.CLEANER_RECORDS_REMOVED, removed);
            LOG.info("Log '{}': compacted {} segments below offset {}, removed {} records ({} keys mapped)",
                    log.name(), rewrite.size(), dirtyEnd, removed, latest.size());
            return removed;
        } finally {
            for (Segment segment : cleanable) {
                segment.release();
            }
        }
    }

    private static List<Segment> retain(List<Segment> segments) {
        List<Segment> retained = new ArrayList<>();
        for (Segment segment : segments) {
            if (!segment.tryRetain()) {
                break;
            }
            retained.add(segment);
        }
        return retained;
    }

    private long nextBase(List<Segment> cleanable, int index) {
        Segment next = log.segments().higher(cleanable.get(index).baseOffset());
        return next == null ? cleanable.get(index).nextOffset() : next.baseOffset();
    }

    /** Maps key to latest offset over dirty segments; returns how many leading segments the map covers (0: none dirty). */
    private int buildOffsetMap(List<Segment> cleanable, long firstDirty, Map<ByteBuffer, Long> latest) throws IOException {
        int covered = 0;
        for (int i = 0; i < cleanable.size(); i++) {
            Segment segment = cleanable.get(i);
            if (segment.nextOffset() <= firstDirty) {
                covered = i + 1;
                continue;
            }
            if (latest.size() >= MAX_MAP_ENTRIES) {
                break;
            }
            BatchIterator batches = readAll(segment);
            while (batches.next()) {
                forEachRecord(batches, () -> {
                    if (record.offset() >= firstDirty && record.hasKey()) {
                        latest.put(ByteBuffer.wrap(record.key()), record.offset());
                    }
                });
            }
            checkEnd(batches);
            covered = i + 1;
        }
        return latest.isEmpty() ? 0 : covered;
    }

    private BatchIterator readAll(Segment segment) {
        return segment.iterator(0, segment.size(), true);
    }

    private void forEachRecord(BatchIterator batches, Runnable action) {
        ByteBuffer buffer = batches.buffer();
        int index = batches.batchIndex();
        int at = record.enterBatch(buffer, index);
        for (int i = RecordBatch.recordCount(buffer, index); i > 0; i--) {
            at = record.parseNext(at);
            action.run();
        }
    }

    private static void checkEnd(BatchIterator batches) throws IOException {
        if (batches.stop() != BatchIterator.Stop.END) {
            throw new IOException("segment " + batches.file() + " is damaged at byte " + batches.validEnd() + ": "
                    + batches.stop() + ": " + batches.detail());
        }
    }

    /** Consecutive segments whose sum fits one segment, its indexes and a 32-bit offset span. */
    private List<List<Segment>> groups(List<Segment> segments) {
        List<List<Segment>> groups = new ArrayList<>();
        List<Segment> group = new ArrayList<>();
        long bytes = 0;
        long indexBytes = 0;
        for (Segment segment : segments) {
            long segmentIndexBytes = Math.max(segment.offsetIndex().sizeInBytes(), segment.timeIndex().sizeInBytes());
            boolean fits = !group.isEmpty()
                    && bytes + segment.size() <= log.settings().segmentBytes()
                    && indexBytes + segmentIndexBytes <= log.settings().segmentIndexBytes()
                    && segment.nextOffset() - group.get(0).baseOffset() <= Integer.MAX_VALUE;
            if (!fits && !group.isEmpty()) {
                groups.add(group);
                group = new ArrayList<>();
                bytes = 0;
                indexBytes = 0;
            }
            group.add(segment);
            bytes += segment.size();
            indexBytes += segmentIndexBytes;
        }
        if (!group.isEmpty()) {
            groups.add(group);
        }
        return groups;
    }

    private long cleanGroup(List<Segment> group, Map<ByteBuffer, Long> latest, long tombstoneHorizon, long dirtyEnd)
            throws IOException {
        long base = group.get(0).baseOffset();
        Segment cleaned = Segment.create(log.directory(), base, log.settings(), Segment.CLEANED_SUFFIX);
        boolean swapped = false;
        try {
            long removed = 0;
            for (Segment segment : group) {
                removed += copyLive(segment, cleaned, latest, tombstoneHorizon);
            }
            long groupEnd = nextBase(group, group.size() - 1);
            if (cleaned.nextOffset() < groupEnd) {
                output.startEmpty(groupEnd - 1);
                cleaned.append(output.seal(), groupEnd - 1, groupEnd - 1, RecordBatch.NO_TIMESTAMP, RecordBatch.NO_TIMESTAMP);
                output.reset();
            }
            cleaned.onBecomeInactive();
            cleaned.flush();
            cleaned.changeSuffix(Segment.CLEANED_SUFFIX, Segment.SWAP_SUFFIX);
            DurableFiles.fsyncDirectory(log.directory());
            afterSwapFileWritten.run();
            swapped = log.swapIn(cleaned, group, dirtyEnd);
            if (!swapped) {
                LOG.info("Log '{}': dropped the compaction of {}: its segments were trimmed meanwhile", log.name(), cleaned.logFile());
            }
            return swapped ? removed : 0;
        } finally {
            if (!swapped) {
                cleaned.deleteWhenReleased();
                cleaned.release();
            }
        }
    }

    /** Copies the live records of one segment into the cleaned one; returns records dropped. */
    private long copyLive(Segment source, Segment cleaned, Map<ByteBuffer, Long> latest, long tombstoneHorizon)
            throws IOException {
        long dropped = 0;
        BatchIterator batches = readAll(source);
        while (batches.next()) {
            ByteBuffer buffer = batches.buffer();
            int index = batches.batchIndex();
            if (batches.batchSize() > output.capacity()) {
                output = new RecordBatchBuilder(batches.batchSize());
            }
            long base = RecordBatch.baseOffset(buffer, index);
            long last = RecordBatch.lastOffset(buffer, index);
            long firstTimestamp = RecordBatch.firstTimestamp(buffer, index);
            output.startCopy(base, firstTimestamp, last, RecordBatch.hasKafkaRecords(buffer, index));
            ByteBuffer probe = buffer.duplicate();
            long[] droppedHere = {0};
            forEachRecord(batches, () -> {
                if (isLive(probe, latest, tombstoneHorizon)) {
                    output.appendCopy(buffer, record.start(), record.end() - record.start(), record.tagEntryIndex(),
                            record.tagEntryLength(), record.timestamp());
                } else {
                    droppedHere[0]++;
                }
            });
            dropped += droppedHere[0];
            if (output.recordCount() > 0) {
                cleaned.append(output.seal(), base, last, firstTimestamp, output.maxTimestamp());
            }
            output.reset();
        }
        checkEnd(batches);
        return dropped;
    }

    private boolean isLive(ByteBuffer probe, Map<ByteBuffer, Long> latest, long tombstoneHorizon) {
        if (!record.hasKey()) {
            return true;
        }
        probe.limit(record.keyIndex() + record.keyLength()).position(record.keyIndex());
        Long newest = latest.get(probe);
        if (newest != null && record.offset() < newest) {
            return false;
        }
        return record.hasValue() || record.timestamp() >= tombstoneHorizon;
    }

    /** Test hook: runs once a group's .swap files are durable, before the swap into the log. */
    Runnable afterSwapFileWritten = () -> { };
}
