package io.sluice.exchange;

import io.sluice.parquet.DuckDb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.stream.ColumnBatch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** What tests publish and how they check it: message i has topic t/(i%3) and payload "m-i". */
final class Captured {

    private Captured() {
    }

    static String topic(long i) {
        return "t/" + (i % 3);
    }

    static byte[] payload(long i) {
        return ("m-" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** One captured record as read back. */
    record Row(long ts, long offset, String topic, byte[] data) {
    }

    /** Every row of the directory's Parquet files, read by DuckDB, in offset order. */
    static List<Row> duckDb(Path dir) throws SQLException, IOException {
        try (Stream<Path> files = Files.list(dir)) {
            if (files.noneMatch(p -> p.getFileName().toString().endsWith(".parquet"))) {
                return List.of();
            }
        }
        List<Row> rows = new ArrayList<>();
        for (Object[] r : DuckDb.query("SELECT epoch_ms(ts), \"offset\", topic, data FROM read_parquet('" + dir + "/*.parquet') ORDER BY \"offset\"")) {
            rows.add(new Row(((Number) r[0]).longValue(), ((Number) r[1]).longValue(), (String) r[2], (byte[]) r[3]));
        }
        return rows;
    }

    /** Every row a query gives, in its order. */
    static List<Row> query(Exchange exchange, long start, long end) throws IOException {
        List<Row> rows = new ArrayList<>();
        try (ExchangeQuery query = exchange.query(start, end)) {
            for (ColumnBatch chunk = query.nextChunk(); chunk != null; chunk = query.nextChunk()) {
                for (int r = chunk.start(); r < chunk.end(); r++) {
                    rows.add(new Row(chunk.longs("ts").get(r), chunk.longs("offset").get(r), chunk.strings("topic").get(r),
                            chunk.binaries("data").get(r)));
                }
            }
        }
        return rows;
    }

    /**
     * Checks rows are exactly the messages numbered {@code messages}, in order, with offsets
     * strictly increasing and ts never decreasing.
     */
    static void assertMessages(List<Row> rows, List<Long> messages) {
        assertEquals(messages.size(), rows.size(), "row count");
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            long message = messages.get(i);
            assertEquals(topic(message), row.topic(), "topic of row " + i);
            assertArrayEquals(payload(message), row.data(), "payload of row " + i + " (message " + message + ")");
            if (i > 0) {
                assertTrue(row.offset() > rows.get(i - 1).offset(), "offset increases at row " + i);
                assertTrue(row.ts() >= rows.get(i - 1).ts(), "ts never decreases at row " + i);
            }
        }
    }

    static List<Long> range(long from, long to) {
        List<Long> list = new ArrayList<>();
        for (long i = from; i < to; i++) {
            list.add(i);
        }
        return list;
    }
}
