package io.sluice.bridges.mqtt;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The bridge's client-side MQTT session: the packet identifiers of QoS 1/2 messages (and
 * SUBSCRIBEs) sent and not yet completed, with the backlog offset each message carries.
 *
 * <p>When the session survives a reconnection (no clean start, and the remote reports the session
 * present), MQTT requires the client to finish what was in flight with the same identifiers:
 * {@link #resume()} keeps the messages still awaiting PUBACK or PUBREC so that the bridge's resend
 * of their offset reuses their identifier with DUP set, and returns the identifiers awaiting PUBCOMP
 * so that their PUBREL is sent again (the remote already has those messages; sending them anew could
 * lose them, because the remote would take a new message with that identifier for a duplicate).
 *
 * <p>Event loop only.
 */
final class Inflight {
    static final byte FREE = 0;
    static final byte AWAIT_PUBACK = 1;
    static final byte AWAIT_PUBREC = 2;
    static final byte AWAIT_PUBCOMP = 3;
    static final byte AWAIT_SUBACK = 4;
    private static final int IDS = 1 << 16;

    private final byte[] states = new byte[IDS];
    private final long[] offsets = new long[IDS];
    /** Offsets of messages carried over from the previous connection, by offset: their identifier. */
    private final NavigableMap<Long, Integer> resumable = new TreeMap<>();
    private int nextId = 1;
    private int used;

    /** A free identifier now in {@code state} for {@code offset}, or 0 when all 65,535 are in use. */
    int allocate(long offset, byte state) {
        if (used == IDS - 1) {
            return 0;
        }
        while (states[nextId] != FREE) {
            nextId = nextId == IDS - 1 ? 1 : nextId + 1;
        }
        int id = nextId;
        nextId = nextId == IDS - 1 ? 1 : nextId + 1;
        states[id] = state;
        offsets[id] = offset;
        used++;
        return id;
    }

    byte state(int id) {
        return states[id];
    }

    long offset(int id) {
        return offsets[id];
    }

    void set(int id, byte state) {
        states[id] = state;
    }

    void free(int id) {
        if (states[id] != FREE) {
            states[id] = FREE;
            used--;
        }
    }

    /** A new session: everything is forgotten. */
    void clear() {
        java.util.Arrays.fill(states, FREE);
        resumable.clear();
        used = 0;
    }

    /** The session was resumed; returns the identifiers whose PUBREL must be sent again. */
    List<Integer> resume() {
        resumable.clear();
        List<Integer> releases = new ArrayList<>();
        for (int id = 1; id < IDS; id++) {
            switch (states[id]) {
                case AWAIT_PUBACK, AWAIT_PUBREC, AWAIT_PUBCOMP -> resumable.put(offsets[id], id);
                case AWAIT_SUBACK -> free(id);
                default -> {
                }
            }
            if (states[id] == AWAIT_PUBCOMP) {
                releases.add(id);
            }
        }
        return releases;
    }

    /**
     * The identifier a resent message at {@code offset} must reuse, or 0 for a new one. Carried-over
     * messages before {@code offset} that the bridge did not send again (dropped, expired) are freed.
     */
    int resumed(long offset) {
        while (!resumable.isEmpty() && resumable.firstKey() < offset) {
            free(resumable.pollFirstEntry().getValue());
        }
        Integer id = resumable.remove(offset);
        return id == null ? 0 : id;
    }
}
