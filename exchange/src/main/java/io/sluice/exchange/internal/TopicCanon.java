package io.sluice.exchange.internal;

import java.util.Objects;

/**
 * Maps equal topic strings to one shared instance, on the offering thread. The broker decodes a
 * new String for every PUBLISH; by the time the writer thread encodes it (the topic column's
 * dictionary and statistics) it has left that core's cache, and hashing and comparing it cost
 * two cache misses per row. A canonical instance stays hot on the writer, and its hash is
 * computed once; the offering thread pays a hash and a compare of a string it has just read.
 *
 * <p>A direct-mapped table of {@value #SLOTS} slots: bounded whatever the number of topics, a
 * collision just replaces the slot. Races between offering threads are benign: a reader sees a
 * slot's old or new String (immutable, so safely published) and at worst misses.
 */
public final class TopicCanon {
    static final int SLOTS = 4096;

    private final String[] slots = new String[SLOTS];

    /** {@code topic}, or an equal instance seen before. */
    public String canonical(String topic) {
        Objects.requireNonNull(topic, "topic");
        int slot = topic.hashCode() & (SLOTS - 1);
        String seen = slots[slot];
        if (topic.equals(seen)) {
            return seen;
        }
        slots[slot] = topic;
        return topic;
    }
}
