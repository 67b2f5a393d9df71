package io.sluice.ringbus;

import io.sluice.settings.InvalidSettingException;

/**
 * What the ring does when a batch is full (it reached {@code cap} messages or
 * {@code max_batch_bytes}) and the writer's queue has no room for it. When the writer has room,
 * every policy simply hands the batch up. The numbers are NanoMQ's {@code fullOp} values.
 */
public enum FullOp {
    /** 0: keep the full batch and reject new messages (counted) until it can be handed up. */
    NONE(0),
    /** 1: discard the full batch (every message counted) and start a new one. */
    DROP(1),
    /** 2: wait for room in the writer's queue (back-pressure: the ring fills, offers are refused and counted). The default. */
    RETURN(2),
    /**
     * 3: spill the batch to the exchange's spill directory, or with a write-ahead log leave it there
     * (its rows are already in it); the writer writes it later, also after a restart.
     */
    FILE(3);

    private final int code;

    FullOp(int code) {
        this.code = code;
    }

    /** The configuration value. */
    public int code() {
        return code;
    }

    /**
     * The policy for a configuration value.
     *
     * @throws InvalidSettingException for {@code ringbus.fullOp}, a value other than 0 to 3
     */
    public static FullOp of(int code) {
        for (FullOp op : values()) {
            if (op.code == code) {
                return op;
            }
        }
        throw new InvalidSettingException("ringbus.fullOp", "must be 0 (NONE), 1 (DROP), 2 (RETURN) or 3 (FILE), was " + code);
    }
}
