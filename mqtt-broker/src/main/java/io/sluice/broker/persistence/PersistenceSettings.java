package io.sluice.broker.persistence;

import io.sluice.storage.FlushPolicy;

import java.nio.file.Path;

/**
 * The {@code persistence { }} block: where and how durably the broker keeps its state.
 *
 * @param enabled         keep retained messages and persistent sessions across restarts
 * @param dir             the directory of the state log
 * @param flush           {@code none}, {@code interval} or {@code always}: when written state is fsynced
 * @param flushIntervalMs the fsync period of {@code interval}
 */
public record PersistenceSettings(boolean enabled, Path dir, FlushPolicy flush, long flushIntervalMs) {

    public PersistenceSettings {
        if (flushIntervalMs < 1) {
            throw new IllegalArgumentException("flush_interval must be at least 1 ms, got " + flushIntervalMs);
        }
    }
}
