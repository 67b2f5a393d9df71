package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.sluice.storage.LogCursor;
import io.sluice.storage.OffsetOutOfRangeException;
import io.sluice.storage.StorageException;
import io.sluice.storage.StoredRecord;

/**
 * The key and tag index of a segment-engine shard, beside its {@link SegmentLog} rather than in its
 * write path: one {@link TermIndexFile} per sealed segment, and in memory the terms of the records
 * after the last sealed segment, indexed by the reader that first needs them. A lookup
 * binary-searches each sealed segment from {@code fromOffset} on that its file's in-memory
 * {@link TermFilter} says may hold the term, and reads only the records whose term hash matches,
 * so its cost follows the matches and the segments holding them, not the records.
 *
 * <p>Files are checked against their segment when first used and rebuilt from it when missing,
 * damaged or stale (after a recovery cut or a compaction); files of segments that retention deleted
 * or compaction merged away are removed at the next lookup.
 * One lookup at a time (the index's monitor); it never blocks the log's writer.
 */
final class SegmentTermIndex implements AutoCloseable {
    static final byte KEY = 'k';
    static final byte TAG = 't';

    private final SegmentLog log;
    private final Map<Long, TermIndexFile> sealed = new HashMap<>();
    private final Map<Long, long[]> tail = new HashMap<>();
    private long[] tailHashes = new long[1024];
    private long[] tailOffsets = new long[1024];
    private int tailSize;
    private long tailBase = -1;
    private long indexedUpTo;
    private long removalsSeen;

    SegmentTermIndex(SegmentLog log) {
        this.log = log;
        this.removalsSeen = log.segments().removals();
        removeOrphans();
    }

    /** 64-bit FNV-1a over the type byte and the term, finished with murmur3's mixer. */
    static long hash(byte type, byte[] term) {
        long h = 0xcbf29ce484222325L;
        h = (h ^ type) * 0x100000001b3L;
        for (byte b : term) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb93fe53d034eL;
        return h ^ (h >>> 33);
    }

    /**
     * Records from {@code fromOffset} on whose term ({@code type}, {@code term}) matches, oldest
     * first, at most {@code max}; {@code matches} rejects hash collisions.
     */
    synchronized List<StoredRecord> find(byte type, byte[] term, long fromOffset, int max, Predicate<StoredRecord> matches) {
        long end = log.highWatermark();
        long from = Math.max(fromOffset, log.logStartOffset());
        List<StoredRecord> found = new ArrayList<>();
        if (from >= end || max <= 0) {
            return found;
        }
        long hash = hash(type, term);
        try {
            catchUp(end);
            for (Segment segment : log.segments().all()) {
                long next = nextBase(segment);
                if (segment.baseOffset() >= tailBase || found.size() >= max) {
                    break;
                }
                if (next > from) {
                    collectSealed(segment, next, hash, from, end, max, matches, found);
                }
            }
            long[] offsets = tail.get(hash);
            int count = offsets == null ? 0 : (int) offsets[0];
            for (int i = 1; i <= count && found.size() < max; i++) {
                if (offsets[i] >= from && offsets[i] < end) {
                    verify(offsets[i], matches, found);
                }
            }
        } catch (IOException e) {
            throw new StorageException("log '" + log.name() + "': the key and tag index in " + log.directory()
                    + " failed: " + e.getMessage(), e);
        }
        return found;
    }

    private void collectSealed(Segment segment, long next, long hash, long from, long end, int max,
                               Predicate<StoredRecord> matches, List<StoredRecord> found) throws IOException {
        TermIndexFile file = sealedFile(segment, next);
        if (!file.mightContain(hash)) {
            return;
        }
        List<Long> candidates = new ArrayList<>();
        for (long at = from; found.size() < max; ) {
            candidates.clear();
            int want = max - found.size();
            file.offsets(hash, at, want, candidates);
            for (long offset : candidates) {
                if (offset < end && found.size() < max) {
                    verify(offset, matches, found);
                }
            }
            if (candidates.size() < want) {
                return;
            }
            at = candidates.get(candidates.size() - 1) + 1;
        }
    }

    /** Reads the record at {@code offset}; keeps it when it is still there and really holds the term. */
    private void verify(long offset, Predicate<StoredRecord> matches, List<StoredRecord> found) {
        List<StoredRecord> read;
        try {
            read = log.read(offset, 1, Integer.MAX_VALUE);
        } catch (OffsetOutOfRangeException e) {
            return; // trimmed meanwhile
        }
        if (!read.isEmpty() && read.get(0).offset() == offset && matches.test(read.get(0))) {
            found.add(read.get(0));
        }
    }

    private long nextBase(Segment segment) {
        Segment higher = log.segments().higher(segment.baseOffset());
        return higher != null ? higher.baseOffset() : Long.MAX_VALUE;
    }

    /** The sealed segment's index file, checked against it and rebuilt when it does not match. */
    private TermIndexFile sealedFile(Segment segment, long next) throws IOException {
        TermIndexFile file = sealed.get(segment.baseOffset());
        if (file != null && file.matches(segment.size(), next)) {
            return file;
        }
        if (file != null) {
            file.close();
            sealed.remove(segment.baseOffset());
        }
        Path path = TermIndexFile.path(log.directory(), segment.baseOffset());
        file = TermIndexFile.openIfCurrent(path, segment.baseOffset(), segment.size(), next);
        if (file == null) {
            Terms terms = new Terms();
            scan(segment.baseOffset(), next, terms);
            TermIndexFile.write(path, segment.baseOffset(), segment.size(), next, terms.hashes, terms.offsets, terms.size);
            file = TermIndexFile.openIfCurrent(path, segment.baseOffset(), segment.size(), next);
            if (file == null) {
                throw new IOException(path + " does not read back as written");
            }
        }
        sealed.put(segment.baseOffset(), file);
        return file;
    }

    /** (hash, offset) pairs of a range of records, growable. */
    private static final class Terms {
        long[] hashes = new long[1024];
        long[] offsets = new long[1024];
        int size;

        void add(long hash, long offset) {
            if (size == hashes.length) {
                hashes = Arrays.copyOf(hashes, size * 2);
                offsets = Arrays.copyOf(offsets, size * 2);
            }
            hashes[size] = hash;
            offsets[size++] = offset;
        }
    }

    private void scan(long from, long to, Terms terms) {
        long start = Math.max(from, log.logStartOffset());
        long end = Math.min(to, log.highWatermark());
        if (start >= end) {
            return;
        }
        try (LogCursor cursor = log.cursor(start)) {
            while (cursor.next() && cursor.offset() < end) {
                if (cursor.hasKey()) {
                    terms.add(hash(KEY, cursor.key()), cursor.offset());
                }
                for (String tag : cursor.tags()) {
                    terms.add(hash(TAG, tag.getBytes(java.nio.charset.StandardCharsets.UTF_8)), cursor.offset());
                }
            }
        }
    }

    /**
     * Indexes the records written since the last lookup into the tail, then writes the file of
     * every tail segment that has been sealed since and drops its terms from memory.
     */
    private void catchUp(long end) throws IOException {
        Segment active = log.segments().last();
        if (tailBase < 0) {
            resetTail(active.baseOffset());
        }
        // retention deletes segments from the front, compaction merges them anywhere below the active one
        long removals = log.segments().removals();
        if (removals != removalsSeen) {
            removalsSeen = removals;
            removeOrphans();
        }
        if (indexedUpTo < end) {
            Terms terms = new Terms();
            scan(indexedUpTo, end, terms);
            for (int i = 0; i < terms.size; i++) {
                addToTail(terms.hashes[i], terms.offsets[i]);
            }
            indexedUpTo = end;
        }
        sealFinishedSegments(active.baseOffset(), end);
    }

    private void resetTail(long base) {
        tail.clear();
        tailSize = 0;
        tailBase = base;
        indexedUpTo = Math.max(base, log.logStartOffset());
    }

    private void addToTail(long hash, long offset) {
        if (tailSize == tailHashes.length) {
            tailHashes = Arrays.copyOf(tailHashes, tailSize * 2);
            tailOffsets = Arrays.copyOf(tailOffsets, tailSize * 2);
        }
        tailHashes[tailSize] = hash;
        tailOffsets[tailSize++] = offset;
        long[] offsets = tail.get(hash);
        if (offsets == null || offsets[0] == offsets.length - 1) {
            offsets = offsets == null ? new long[4] : Arrays.copyOf(offsets, offsets.length * 2);
            tail.put(hash, offsets);
        }
        offsets[(int) ++offsets[0]] = offset;
    }

    /** Segments of the tail below the active one whose records are all indexed get their file. */
    private void sealFinishedSegments(long activeBase, long end) throws IOException {
        if (tailBase >= activeBase || end < activeBase) {
            return;
        }
        for (Segment segment : log.segments().range(tailBase, activeBase)) {
            if (segment.baseOffset() >= activeBase) {
                break;
            }
            long next = nextBase(segment);
            int first = 0;
            while (first < tailSize && tailOffsets[first] < segment.baseOffset()) {
                first++;
            }
            int last = first;
            while (last < tailSize && tailOffsets[last] < next) {
                last++;
            }
            long[] hashes = Arrays.copyOfRange(tailHashes, first, last);
            long[] offsets = Arrays.copyOfRange(tailOffsets, first, last);
            TermIndexFile.write(TermIndexFile.path(log.directory(), segment.baseOffset()), segment.baseOffset(),
                    segment.size(), next, hashes, offsets, hashes.length);
        }
        long[] keptHashes = new long[Math.max(1024, tailSize)];
        long[] keptOffsets = new long[keptHashes.length];
        int kept = 0;
        for (int i = 0; i < tailSize; i++) {
            if (tailOffsets[i] >= activeBase) {
                keptHashes[kept] = tailHashes[i];
                keptOffsets[kept++] = tailOffsets[i];
            }
        }
        tail.clear();
        tailSize = 0;
        tailBase = activeBase;
        for (int i = 0; i < kept; i++) {
            addToTail(keptHashes[i], keptOffsets[i]);
        }
    }

    /** Deletes index files whose segment is gone (retention, a recovery cut, a compaction merge) and forgets their handles. */
    synchronized void removeOrphans() {
        for (Iterator<Map.Entry<Long, TermIndexFile>> it = sealed.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, TermIndexFile> entry = it.next();
            Segment segment = log.segments().floor(entry.getKey());
            if (segment == null || segment.baseOffset() != entry.getKey()) {
                entry.getValue().close();
                it.remove();
            }
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(log.directory(), "*" + TermIndexFile.SUFFIX)) {
            for (Path file : files) {
                long base = Segment.parseBaseOffset(file.getFileName().toString());
                Segment segment = base < 0 ? null : log.segments().floor(base);
                if (segment == null || segment.baseOffset() != base) {
                    Files.deleteIfExists(file);
                }
            }
        } catch (IOException e) {
            throw new StorageException("log '" + log.name() + "': removing stale key and tag indexes in "
                    + log.directory() + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        sealed.values().forEach(TermIndexFile::close);
        sealed.clear();
    }
}
