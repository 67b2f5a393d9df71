package io.sluice.bridges.backlog;

/**
 * The sizes of the records a backlog holds, oldest first, so that the byte count can drop as the
 * oldest leave without reading them back: a growable ring of ints. Not thread-safe; the backlog
 * guards it.
 */
final class RecordSizes {
    private int[] ring = new int[1024];
    private int head;
    private int count;

    void addLast(int size) {
        if (count == ring.length) {
            grow();
        }
        ring[(head + count) & (ring.length - 1)] = size;
        count++;
    }

    int removeFirst() {
        if (count == 0) {
            throw new IllegalStateException("no record sizes left");
        }
        int size = ring[head];
        head = (head + 1) & (ring.length - 1);
        count--;
        if (count == 0) {
            head = 0;
        }
        return size;
    }

    int size() {
        return count;
    }

    private void grow() {
        int[] bigger = new int[ring.length * 2];
        for (int i = 0; i < count; i++) {
            bigger[i] = ring[(head + i) & (ring.length - 1)];
        }
        ring = bigger;
        head = 0;
    }
}
