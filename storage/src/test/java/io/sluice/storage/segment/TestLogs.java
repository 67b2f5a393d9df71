package io.sluice.storage.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import io.sluice.storage.FlushPolicy;
import io.sluice.storage.LogSettings;
import io.sluice.storage.StoredRecord;

/** Settings and record shapes the log tests share: small segments so a few hundred records roll often. */
final class TestLogs {
    private TestLogs() {
    }

    static LogSettings small() {
        return LogSettings.builder()
                .segmentBytes(4096)
                .indexIntervalBytes(256)
                .segmentIndexBytes(4096)
                .flush(FlushPolicy.NONE)
                .retentionMs(LogSettings.UNLIMITED)
                .build();
    }

    static SegmentLog open(Path dir, LogSettings settings) {
        return SegmentLog.open(dir, "test-" + dir.getFileName(), settings);
    }

    static byte[] value(long i) {
        return ("value-" + i + "-" + "x".repeat((int) (i % 50))).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] key(long i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** Appends {@code count} records (timestamp 1000 + i), committing every {@code perCommit}. */
    static void appendValues(SegmentLog log, int count, int perCommit) {
        for (int i = 0; i < count; i++) {
            long offset = log.nextOffset();
            log.append(1000 + offset, key(offset), value(offset), "topic/" + (offset % 3));
            if ((i + 1) % perCommit == 0) {
                log.commit();
            }
        }
        log.commit();
    }

    static List<StoredRecord> readAll(SegmentLog log) {
        return log.read(log.logStartOffset(), Integer.MAX_VALUE, Integer.MAX_VALUE);
    }

    /** Asserts the records are exactly offsets from..to-1 as {@link #appendValues} wrote them. */
    static void assertValues(List<StoredRecord> records, long from, long to) {
        assertEquals(to - from, records.size(), "record count");
        for (int i = 0; i < records.size(); i++) {
            StoredRecord r = records.get(i);
            long offset = from + i;
            assertEquals(offset, r.offset());
            assertEquals(new String(value(offset), StandardCharsets.UTF_8), new String(r.value(), StandardCharsets.UTF_8));
            assertEquals(1000 + offset, r.timestamp());
            assertEquals(List.of("topic/" + (offset % 3)), r.tags());
        }
    }
}
