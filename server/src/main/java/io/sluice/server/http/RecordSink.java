package io.sluice.server.http;

import io.sluice.stream.ColumnBatch;

import java.io.IOException;

/** Where the rows of a range read go, in one download format; one per request, one thread. */
interface RecordSink {
    /** Writes the chunk's rows (the columns of the sink's schema; missing ones are null). */
    void write(ColumnBatch chunk) throws IOException;

    /** Ends the body after the last chunk; {@code rows} were written. */
    void finish(long rows) throws IOException;

    /** Cleans up after {@code cause} stopped the read (a sink with temporary files deletes them). */
    default void abandon(Exception cause) {
    }
}
