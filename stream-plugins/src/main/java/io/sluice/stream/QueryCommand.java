package io.sluice.stream;

import java.util.List;
import java.util.Objects;

/**
 * A parsed query: the key range, how the reply is sent, and what the plugin will decode.
 *
 * @param sync          true for {@code sync} (one data frame), false for {@code async} (streamed frames)
 * @param start         first key (ts, epoch ms), inclusive
 * @param end           last key, inclusive; never smaller than start
 * @param columns       the requested output columns in the plugin's own terms, in request order
 *                      (RAW: {@code ts,data} by default; SPI: signal ids)
 * @param storedColumns the stored columns decode needs, which the store reads and nothing else;
 *                      empty means every stored column (SPI without a signal list)
 */
public record QueryCommand(boolean sync, long start, long end, List<String> columns, List<String> storedColumns) {

    public QueryCommand {
        columns = List.copyOf(Objects.requireNonNull(columns, "columns"));
        storedColumns = List.copyOf(Objects.requireNonNull(storedColumns, "storedColumns"));
        if (end < start) {
            throw new IllegalArgumentException("end " + end + " is before start " + start);
        }
    }

    /** Whether the store must read every column (no projection). */
    public boolean readsAllColumns() {
        return storedColumns.isEmpty();
    }
}
