package io.sluice.stream;

import java.util.Map;

/**
 * One exchange's instance of a plugin: the three operations of DESIGN.md.
 *
 * <p>Threading: {@link #encode} runs on the exchange's writer thread and, for data still in
 * memory, on query threads at the same time; {@link #parseCommand} and {@link #decode} run on
 * query threads, possibly several at once. A codec must therefore be stateless or thread-safe.
 *
 * <p>Row-wise contract: encoding rows [a, b) of a capture batch must give the same rows as
 * rows [a, b) of encoding the whole batch, because queries encode slices of what is still in
 * memory on the fly and must get the answers files give.
 */
public interface StreamCodec {

    /**
     * Turns captured messages into columns. The result carries {@link Column#TS} and
     * {@link Column#OFFSET} with the batch's keys, one row per message in the same order, and may
     * share the batch's arrays. Columns may vary from batch to batch (a file gets their union).
     * Must not throw for any payload: a payload the plugin cannot interpret is kept raw.
     */
    ColumnBatch encode(CaptureBatch batch);

    /**
     * Parses a query command ({@code sync-<start>-<end>[-<columns>]}, see {@link CommandParser}).
     *
     * @throws CommandException when the command cannot be served as written
     */
    QueryCommand parseCommand(String command) throws CommandException;

    /**
     * Writes the rows of {@code rows} as records into the sink, in row order, one
     * {@link DecodeSink#claim} per record. {@code rows} holds at least the columns
     * {@link QueryCommand#storedColumns()} named (those present in the stored data), looked up by
     * name: order and presence may differ between batches. A plugin may leave rows out (SPI
     * leaves out rows without any requested signal).
     */
    void decode(ColumnBatch rows, QueryCommand command, DecodeSink sink);

    /**
     * The codec's own counters and their values now, in a stable order; none by default. A codec
     * counts only in encodings of rows being written ({@link CaptureBatch#isWrite()}), which
     * happen once per batch, so a payload that queries also encoded is counted once. Any thread.
     */
    default Map<PluginCounter, Long> counters() {
        return Map.of();
    }
}
