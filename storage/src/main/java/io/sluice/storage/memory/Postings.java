package io.sluice.storage.memory;

import java.util.Arrays;
import java.util.function.LongPredicate;

/**
 * One term's offsets, ascending, in a long array: a read is a binary search and a walk over
 * adjacent longs instead of a skip list of boxed offsets (a pointer or two, each a likely cache
 * miss, per entry and per level). One writer appends and removes; every change publishes a new
 * {@link Run}, and the writer never changes an entry a published run covers, so readers read one
 * run without locks.
 *
 * <p>A removed offset whose record is gone stays in the array as a stale entry, which readers skip
 * (the shard finds no record at it), until stale entries make up half of the run: then the live
 * ones are copied out, so a removal costs constant time on average. Removals at the head (retention,
 * {@code deleteRecordsBefore}) only move the run's head.
 */
final class Postings {
    private static final long[] NONE = new long[0];

    /** The entries {@code offsets[head, count)}. */
    private record Run(long[] offsets, int head, int count) {
        int size() {
            return count - head;
        }
    }

    private volatile Run run = new Run(NONE, 0, 0);
    /** Entries of the run whose record is gone (writer only). */
    private int stale;

    /** Appends {@code offset}, which is above every offset already here (a record's tag listed twice adds it once). */
    void add(long offset) {
        Run current = run;
        if (current.size() > 0 && current.offsets()[current.count() - 1] == offset) {
            return;
        }
        if (current.count() == current.offsets().length) {
            current = copyLive(current, offsets -> true);
        }
        current.offsets()[current.count()] = offset;
        run = new Run(current.offsets(), current.head(), current.count() + 1);
    }

    /**
     * Forgets {@code offset}, whose record {@code live} no longer finds; returns true when no
     * entry is left, so the term can go.
     */
    boolean remove(long offset, LongPredicate live) {
        Run current = run;
        stale++;
        int head = current.head();
        while (head < current.count() && !live.test(current.offsets()[head])) {
            head++;
            stale--;
        }
        stale = Math.max(stale, 0);
        current = new Run(current.offsets(), head, current.count());
        if (stale > 0 && 2 * stale >= current.size()) {
            current = copyLive(current, live);
        }
        run = current;
        return current.size() == 0;
    }

    /** A new run of the entries {@code live} accepts, with room for as many again. */
    private Run copyLive(Run from, LongPredicate live) {
        long[] copy = new long[Math.max(4, 2 * from.size())];
        int n = 0;
        for (int i = from.head(); i < from.count(); i++) {
            if (live.test(from.offsets()[i])) {
                copy[n++] = from.offsets()[i];
            }
        }
        stale = 0;
        return new Run(copy, 0, n);
    }

    /** Gives {@code visitor} the offsets from {@code from} on, ascending, until it returns false. */
    void forEachFrom(long from, LongPredicate visitor) {
        Run current = run;
        int at = Arrays.binarySearch(current.offsets(), current.head(), current.count(), from);
        for (int i = at >= 0 ? at : -at - 1; i < current.count(); i++) {
            if (!visitor.test(current.offsets()[i])) {
                return;
            }
        }
    }
}
