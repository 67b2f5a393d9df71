package io.sluice.storage.segment;

import io.sluice.storage.LogSettings;

/**
 * Retention of a {@code cleanup_policy = delete} log, as Kafka decides it: from the oldest on, a
 * segment goes when its newest record is older than {@code retention_ms}, then while the log stays
 * above {@code retention_bytes} without it. Only whole segments, never the active one, and never one
 * that still holds offsets at or past the high watermark. The log start offset moves to the first
 * segment kept, persisted before any file is deleted ({@link SegmentLog#moveStartTo}).
 * Runs in the log's maintenance pass on the scheduler's cleaner thread.
 */
final class Retention {
    private Retention() {
    }

    /** Deletes what retention allows at {@code nowMs}; returns segments deleted. */
    static int enforce(SegmentLog log, long nowMs) {
        long newStart = newLogStart(log.segments(), log.settings(), nowMs, log.highWatermark());
        return newStart < 0 ? 0 : log.moveStartTo(newStart, "retention");
    }

    /** The base offset of the oldest segment retention keeps, or -1 when it deletes none. */
    static long newLogStart(LogSegments segments, LogSettings settings, long nowMs, long highWatermark) {
        long bytes = segments.totalBytes();
        long newStart = -1;
        for (Segment segment : segments.below(highWatermark)) {
            boolean expired = settings.retentionMs() != LogSettings.UNLIMITED
                    && nowMs - segment.maxTimestamp() > settings.retentionMs();
            boolean oversize = settings.retentionBytes() != LogSettings.UNLIMITED
                    && bytes - segment.size() >= settings.retentionBytes();
            if (!expired && !oversize) {
                break;
            }
            bytes -= segment.size();
            newStart = segments.higher(segment.baseOffset()).baseOffset();
        }
        return newStart;
    }
}
