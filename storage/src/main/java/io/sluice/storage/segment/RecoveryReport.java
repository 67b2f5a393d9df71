package io.sluice.storage.segment;

import java.util.List;

/**
 * What opening a log did to its files, for logs and tests.
 *
 * @param cleanShutdown      the clean-shutdown marker was found, so no segment was scanned unless damaged
 * @param segmentsLoaded     segments in the log after opening
 * @param segmentsScanned    segments whose every batch was read and CRC-checked
 * @param indexesRebuilt     segments whose indexes were rebuilt (scanned, missing or corrupt)
 * @param bytesTruncated     bytes cut from torn or corrupt tails
 * @param segmentsDeleted    segments deleted: after a cut, wholly below the log start, or replaced by a swap
 * @param swapsCompleted     compaction swaps finished after a crash
 * @param cuts               one sentence per cut: file, byte position, bytes and reason
 */
public record RecoveryReport(
        boolean cleanShutdown,
        int segmentsLoaded,
        int segmentsScanned,
        int indexesRebuilt,
        long bytesTruncated,
        int segmentsDeleted,
        int swapsCompleted,
        List<String> cuts) {

    public RecoveryReport {
        cuts = List.copyOf(cuts);
    }
}
