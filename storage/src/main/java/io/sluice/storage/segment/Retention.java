package io.sluice.storage.segment;

import java.util.ArrayList;
import java.util.List;

import io.sluice.storage.LogSettings;

/**
 * Which segments retention deletes, as Kafka decides it: from the oldest on, a segment goes when
 * its newest record is older than {@code retention_ms}, then while the log stays above
 * {@code retention_bytes} without it. Only whole segments, never the active one (the caller passes
 * the inactive ones), and never one that still holds offsets at or past the high watermark.
 */
final class Retention {
    private Retention() {
    }

    static List<Segment> segmentsToDelete(List<Segment> inactive, long totalBytes, LogSettings settings, long nowMs,
                                          long highWatermark, LogSegments all) {
        List<Segment> doomed = new ArrayList<>();
        long bytes = totalBytes;
        for (Segment segment : inactive) {
            Segment next = all.higher(segment.baseOffset());
            if (next == null || next.baseOffset() > highWatermark) {
                break;
            }
            boolean expired = settings.retentionMs() != LogSettings.UNLIMITED
                    && nowMs - segment.maxTimestamp() > settings.retentionMs();
            boolean oversize = settings.retentionBytes() != LogSettings.UNLIMITED
                    && bytes - segment.size() >= settings.retentionBytes();
            if (!expired && !oversize) {
                break;
            }
            doomed.add(segment);
            bytes -= segment.size();
        }
        return doomed;
    }
}
