package io.sluice.storage.memory;

import java.util.NavigableSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The offsets of the records holding each term (a key or a tag) of a memory shard, so reads by key
 * or tag go straight to them. One writer (the shard's monitor) adds and removes; readers iterate
 * without locks and may see an offset whose record is already gone, which they skip.
 *
 * @param <T> the term type, with value equality
 */
final class TermIndex<T> {
    private final ConcurrentHashMap<T, NavigableSet<Long>> offsets = new ConcurrentHashMap<>();

    void add(T term, long offset) {
        offsets.computeIfAbsent(term, t -> new ConcurrentSkipListSet<>()).add(offset);
    }

    void remove(T term, long offset) {
        NavigableSet<Long> set = offsets.get(term);
        if (set != null) {
            set.remove(offset);
            if (set.isEmpty()) {
                offsets.remove(term, set);
            }
        }
    }

    /** The term's offsets from {@code from} on, ascending. */
    NavigableSet<Long> from(T term, long from) {
        NavigableSet<Long> set = offsets.get(term);
        return set == null ? new java.util.TreeSet<>() : set.tailSet(from, true);
    }
}
