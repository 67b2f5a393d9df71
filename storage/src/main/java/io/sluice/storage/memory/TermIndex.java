package io.sluice.storage.memory;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;

/**
 * The offsets of the records holding each term (a key or a tag) of a memory shard, so reads by key
 * or tag go straight to them: a hash lookup, then the term's {@link Postings}. One writer (the
 * shard's monitor) adds and removes; readers read without locks and may see an offset whose record
 * is already gone, which they skip.
 *
 * @param <T> the term type, with value equality
 */
final class TermIndex<T> {
    private final ConcurrentHashMap<T, Postings> offsets = new ConcurrentHashMap<>();
    private final LongPredicate live;

    /** {@code live} tells whether the shard still holds the record at an offset. */
    TermIndex(LongPredicate live) {
        this.live = live;
    }

    void add(T term, long offset) {
        offsets.computeIfAbsent(term, t -> new Postings()).add(offset);
    }

    /** Forgets {@code offset} under {@code term}; its record must be gone already. */
    void remove(T term, long offset) {
        Postings postings = offsets.get(term);
        if (postings != null && postings.remove(offset, live)) {
            offsets.remove(term, postings);
        }
    }

    /** Gives {@code visitor} the term's offsets from {@code from} on, ascending, until it returns false. */
    void forEachFrom(T term, long from, LongPredicate visitor) {
        Postings postings = offsets.get(term);
        if (postings != null) {
            postings.forEachFrom(from, visitor);
        }
    }
}
