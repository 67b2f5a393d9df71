package io.sluice.bridges.mqtt;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The bridge's client-side MQTT session: the packet identifiers of QoS 1/2 messages (and
 * SUBSCRIBEs) sent and not yet completed, with the backlog offset each message carries.
 *
 * <p>A stored message's identifier follows from its backlog offset ({@link #idFor}), so the
 * identifier is as durable as the message: after a reconnection, and after a crash or restart of
 * Sluice that forgot this table, a message is sent again with the identifier it had. A remote that
 * still holds the QoS 2 exchange of that identifier (it sent PUBREC, PUBREL did not arrive) takes the
 * second PUBLISH for the duplicate it is and answers PUBREC again without delivering it again (MQTT 5
 * §4.3.3, §4.4), and the exchange completes with PUBREL and PUBCOMP: exactly once, through a restart.
 * An identifier still held by an older message (or a SUBSCRIBE) makes the newer one wait for it.
 *
 * <p>When the session survives a reconnection without a restart, {@link #resume()} returns the
 * identifiers awaiting PUBCOMP so that their PUBREL is sent again (the remote already has those
 * messages); the others are sent again with their identifier and DUP set.
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
    /** Identifiers whose PUBLISH went out on an earlier connection of a resumed session: resent with DUP. */
    private final boolean[] carried = new boolean[IDS];
    private int nextId = 1;

    /** The packet identifier of the stored message at backlog {@code offset}: 1 to 65,535, the same after a restart. */
    static int idFor(long offset) {
        return (int) (offset % (IDS - 1)) + 1;
    }

    /**
     * Takes the identifier of the message at {@code offset} into {@code state}; returns it, or 0 while an
     * older message or a SUBSCRIBE still holds it. A message of a resumed session keeps its identifier.
     */
    int claim(long offset, byte state) {
        int id = idFor(offset);
        if (states[id] != FREE) {
            if (!carried[id]) {
                return 0;
            }
            // Carried over for another offset, which the bridge did not send again: it left the backlog.
            carried[id] = offsets[id] == offset;
        }
        states[id] = state;
        offsets[id] = offset;
        return id;
    }

    /** Whether the PUBLISH with {@code id} goes out again (DUP): it was sent on an earlier connection of this session. */
    boolean isResent(int id) {
        boolean resent = carried[id];
        carried[id] = false;
        return resent;
    }

    /** A free identifier for a SUBSCRIBE, or 0 when none is free. */
    int allocateForSubscribe() {
        for (int tries = 0; tries < IDS - 1; tries++) {
            int id = nextId;
            nextId = nextId == IDS - 1 ? 1 : nextId + 1;
            if (states[id] == FREE) {
                states[id] = AWAIT_SUBACK;
                offsets[id] = -1;
                return id;
            }
        }
        return 0;
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
        states[id] = FREE;
        carried[id] = false;
    }

    /** A new session: everything is forgotten. */
    void clear() {
        Arrays.fill(states, FREE);
        Arrays.fill(carried, false);
    }

    /**
     * The session was resumed; returns the identifiers whose PUBREL must be sent again. Messages
     * awaiting PUBACK or PUBREC keep their identifiers for their resend; those the bridge does not
     * send again (dropped or expired meanwhile) give them up when a newer message claims them.
     */
    List<Integer> resume() {
        List<Integer> releases = new ArrayList<>();
        for (int id = 1; id < IDS; id++) {
            switch (states[id]) {
                case AWAIT_PUBACK, AWAIT_PUBREC -> carried[id] = true;
                case AWAIT_PUBCOMP -> releases.add(id);
                case AWAIT_SUBACK -> free(id);
                default -> {
                }
            }
        }
        return releases;
    }
}
