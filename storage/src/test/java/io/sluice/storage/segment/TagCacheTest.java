package io.sluice.storage.segment;

import static io.sluice.storage.segment.TestLogs.readAll;
import static io.sluice.storage.segment.TestLogs.small;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.storage.StoredRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record's single tag is written from the log's {@link TagCache}: whatever mix of instances,
 * colliding slots and kinds of CharSequence the writer appends, each record reads back with its
 * own tag, encoded as {@link Utf8} encodes tags.
 */
class TagCacheTest {

    @TempDir
    Path dir;

    @Test
    void everyRecordKeepsItsOwnTag() {
        String canonical = "plant/line-1/sensor";
        List<CharSequence> appended = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            appended.add(canonical); // the same instance: a cache hit
            appended.add(new String("plant/line-" + (i % 2) + "/sensor")); // equal to an earlier one, a new instance
            appended.add(i % 2 == 0 ? "Aa" : "BB"); // equal hash codes, so one slot that changes hands every time
            appended.add(new StringBuilder("builder/").append(i)); // not a String: encoded each time
            appended.add("ünï/\uD83D\uDE00"); // two-, three- and four-byte characters
        }
        appended.add("bad\uD800surrogate"); // unpaired: '?', as Utf8 writes it
        try (SegmentLog log = TestLogs.open(dir, small())) {
            for (CharSequence tag : appended) {
                log.append(1, null, "v".getBytes(), tag);
            }
            log.commit();
            List<StoredRecord> records = readAll(log);
            assertEquals(appended.size(), records.size());
            for (int i = 0; i < appended.size() - 1; i++) {
                assertEquals(List.of(appended.get(i).toString()), records.get(i).tags(), "record " + i);
            }
            assertEquals(List.of("bad?surrogate"), records.get(appended.size() - 1).tags());
        }
    }
}
