package io.sluice.settings;

import java.util.Objects;

/**
 * A setting whose value cannot be used: its key path, relative to the block of settings that
 * checked it ({@code ringbus.cap} for an exchange's settings, {@code segment_ms} for a log's),
 * what is wrong with it, and the cause, if any. Whoever knows where that block sits in the
 * configuration makes the path absolute with {@link #under}. The message is always
 * {@code <key>: <problem>}.
 */
public final class InvalidSettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final String problem;

    /**
     * @param key     the key path relative to the block being checked, e.g. {@code parquet.file_count}
     * @param problem what is wrong, e.g. {@code must be at least 1, was 0}
     */
    public InvalidSettingException(String key, String problem) {
        this(key, problem, null);
    }

    /** As {@link #InvalidSettingException(String, String)}, with what caused it. */
    public InvalidSettingException(String key, String problem, Throwable cause) {
        super(Objects.requireNonNull(key, "key") + ": " + problem, cause);
        if (key.isEmpty()) {
            throw new IllegalArgumentException("a setting's key must not be empty (problem: " + problem + ")");
        }
        this.key = key;
        this.problem = problem;
    }

    /** The key path, relative to the block that was checked unless made absolute by {@link #under}. */
    public String key() {
        return key;
    }

    /** What is wrong, without the key. */
    public String problem() {
        return problem;
    }

    /**
     * The same error with its key inside {@code block}: {@code under("exchange_client.a.exchange")}
     * turns {@code ringbus.cap} into {@code exchange_client.a.exchange.ringbus.cap}. An empty block
     * (the top level) changes nothing. The stack trace and the cause stay.
     */
    public InvalidSettingException under(String block) {
        if (block.isEmpty()) {
            return this;
        }
        InvalidSettingException moved = new InvalidSettingException(block + "." + key, problem, getCause());
        moved.setStackTrace(getStackTrace());
        return moved;
    }
}
