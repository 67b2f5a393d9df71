package io.sluice.storage.segment;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The segments of one log by base offset. A concurrent sorted map, so readers find segments while
 * the writer rolls and the cleaner swaps, without locks. The last segment is the active one.
 */
final class LogSegments {
    private final ConcurrentSkipListMap<Long, Segment> segments = new ConcurrentSkipListMap<>();
    private final AtomicLong removals = new AtomicLong();

    void put(Segment segment) {
        segments.put(segment.baseOffset(), segment);
    }

    boolean remove(Segment segment) {
        boolean removed = segments.remove(segment.baseOffset(), segment);
        if (removed) {
            removals.incrementAndGet();
        }
        return removed;
    }

    /**
     * How many segments have been removed (retention, a recovery cut, compaction merging them), so
     * files derived from segments can notice cheaply that some of theirs may be orphans.
     */
    long removals() {
        return removals.get();
    }

    boolean contains(Segment segment) {
        return segments.get(segment.baseOffset()) == segment;
    }

    Segment first() {
        Map.Entry<Long, Segment> e = segments.firstEntry();
        return e == null ? null : e.getValue();
    }

    Segment last() {
        Map.Entry<Long, Segment> e = segments.lastEntry();
        return e == null ? null : e.getValue();
    }

    /** The segment that would hold {@code offset}: the one with the largest base offset at or below it. */
    Segment floor(long offset) {
        Map.Entry<Long, Segment> e = segments.floorEntry(offset);
        return e == null ? null : e.getValue();
    }

    /** The segment after the one based at {@code baseOffset}. */
    Segment higher(long baseOffset) {
        Map.Entry<Long, Segment> e = segments.higherEntry(baseOffset);
        return e == null ? null : e.getValue();
    }

    /** Segments with base offsets in [from, to], in order. */
    Collection<Segment> range(long from, long to) {
        return from > to ? List.of() : segments.subMap(from, true, to, true).values();
    }

    Collection<Segment> all() {
        return segments.values();
    }

    /**
     * The segments lying wholly below {@code offset}, oldest first: those whose next segment starts
     * at or before {@code offset}. Never the last (active) one.
     */
    List<Segment> below(long offset) {
        List<Segment> found = new ArrayList<>();
        Segment previous = null;
        for (Segment segment : segments.values()) {
            if (segment.baseOffset() > offset) {
                break;
            }
            if (previous != null) {
                found.add(previous);
            }
            previous = segment;
        }
        return found;
    }

    int count() {
        return segments.size();
    }

    long totalBytes() {
        long bytes = 0;
        for (Segment segment : segments.values()) {
            bytes += segment.size();
        }
        return bytes;
    }
}
