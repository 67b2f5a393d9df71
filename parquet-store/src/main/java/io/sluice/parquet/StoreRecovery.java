package io.sluice.parquet;

import java.util.List;

/**
 * What a store found when it opened.
 *
 * @param files             published files, in seq order
 * @param maxOffset         the largest offset in them (footer metadata of the newest), or -1
 * @param maxTs             the largest ts in them, or {@link Long#MIN_VALUE}
 * @param tempFilesRemoved  crash leftovers deleted
 * @param corruptFiles      unreadable published files renamed aside
 */
public record StoreRecovery(List<StoredFile> files, long maxOffset, long maxTs, int tempFilesRemoved, int corruptFiles) {
}
