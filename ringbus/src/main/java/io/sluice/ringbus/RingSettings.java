package io.sluice.ringbus;

import io.sluice.settings.InvalidSettingException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How one exchange's ring buffers and hands up batches. Invalid values throw
 * {@link InvalidSettingException} with the key path relative to the exchange block
 * ({@code ringbus.cap}, {@code flush_interval}).
 *
 * @param name          the ringbus name (NanoMQ's {@code ringbus.name}), for logs
 * @param cap           messages per batch, 1 to {@value #MAX_CAP}; a full batch is handed up
 * @param fullOp        what happens when a full batch finds the writer's queue full
 * @param flushInterval a batch older than this is handed up even if not full (1 ms to 1 h)
 * @param maxBatchBytes a batch whose payload and topic bytes reach this is handed up, at least 1
 * @param slots         Disruptor slots between the broker and the ring thread, a power of two;
 *                      0 picks the next power of two at or above {@value #SLOTS_PER_CAP} times
 *                      {@code cap}, within [{@value #MIN_SLOTS}, {@value #MAX_SLOTS}]
 * @param spillDir      where fullOp FILE spills, one directory per exchange; null lets the
 *                      exchange pick one (see the exchange's settings)
 */
public record RingSettings(String name, int cap, FullOp fullOp, Duration flushInterval, long maxBatchBytes, int slots, Path spillDir) {

    /** Largest {@code cap}. */
    public static final int MAX_CAP = 1 << 24;
    /** Fewest Disruptor slots picked by default. */
    public static final int MIN_SLOTS = 8192;
    /** Most Disruptor slots picked by default. */
    public static final int MAX_SLOTS = 1 << 20;
    /**
     * Slots per message of {@code cap} picked by default. The ring must hold the messages that
     * arrive while its thread waits for the core: with every broker thread on one core and 64 B
     * messages at 0.6–1.2 M a second, 16,384 slots (about 15–20 ms) were refused into in four of
     * six runs, 65,536 and 131,072 in none of seven (benchmarks.md, section 2). A slot costs about
     * 36 bytes and keeps no payload once taken.
     */
    static final int SLOTS_PER_CAP = 4;

    public RingSettings {
        Objects.requireNonNull(name, "name");
        if (cap < 1 || cap > MAX_CAP) {
            throw new InvalidSettingException("ringbus.cap", "must be 1 to " + MAX_CAP + " messages, was " + cap);
        }
        if (fullOp == null) {
            throw new InvalidSettingException("ringbus.fullOp", "missing");
        }
        if (flushInterval == null || flushInterval.compareTo(Duration.ofMillis(1)) < 0 || flushInterval.compareTo(Duration.ofHours(1)) > 0) {
            throw new InvalidSettingException("flush_interval", "must be 1 ms to 1 h, was " + flushInterval);
        }
        if (maxBatchBytes < 1) {
            throw new InvalidSettingException("max_batch_bytes", "must be at least 1, was " + maxBatchBytes);
        }
        if (slots < 0 || (slots > 0 && Integer.bitCount(slots) != 1)) {
            throw new InvalidSettingException("ringbus.slots", "must be 0 (derived from cap) or a power of two, was " + slots);
        }
    }

    /** Defaults: cap 10000, RETURN, flush every second, 16 MiB batches, derived slots, no spill directory. */
    public static RingSettings defaults() {
        return new RingSettings("ringbus", 10_000, FullOp.RETURN, Duration.ofSeconds(1), 16L << 20, 0, null);
    }

    public RingSettings withCap(int value) {
        return new RingSettings(name, value, fullOp, flushInterval, maxBatchBytes, slots, spillDir);
    }

    public RingSettings withFullOp(FullOp value) {
        return new RingSettings(name, cap, value, flushInterval, maxBatchBytes, slots, spillDir);
    }

    public RingSettings withFlushInterval(Duration value) {
        return new RingSettings(name, cap, fullOp, value, maxBatchBytes, slots, spillDir);
    }

    public RingSettings withMaxBatchBytes(long value) {
        return new RingSettings(name, cap, fullOp, flushInterval, value, slots, spillDir);
    }

    public RingSettings withSlots(int value) {
        return new RingSettings(name, cap, fullOp, flushInterval, maxBatchBytes, value, spillDir);
    }

    public RingSettings withSpillDir(Path value) {
        return new RingSettings(name, cap, fullOp, flushInterval, maxBatchBytes, slots, value);
    }

    /** The Disruptor ring size these settings give. */
    public int effectiveSlots() {
        if (slots > 0) {
            return slots;
        }
        int wanted = SLOTS_PER_CAP * cap;
        int pow2 = Integer.bitCount(wanted) == 1 ? wanted : Integer.highestOneBit(wanted) << 1;
        return Math.max(MIN_SLOTS, Math.min(MAX_SLOTS, pow2));
    }
}
