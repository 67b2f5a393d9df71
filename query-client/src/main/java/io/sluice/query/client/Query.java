package io.sluice.query.client;

import java.util.Iterator;

/**
 * The reply to one command, read as it arrives: either frame by frame ({@link #nextFrame},
 * {@link #frames}) or, for a RAW exchange, record by record ({@link #records}); not both.
 *
 * <p>Reading throws {@link QueryError} when the server answered {@code ERR <code> <reason>} (an
 * {@code async} reply may have delivered data frames before it: the reply is then incomplete),
 * {@link QueryTimeoutException} when the server went silent, and {@link QueryException} for any
 * other broken reply. One thread. Not to be implemented outside this library.
 */
public interface Query extends AutoCloseable {

    /** The command sent. */
    String command();

    /**
     * The next data frame, exactly as sent (a {@code sync} reply has exactly one, possibly empty).
     *
     * @return the frame, or null once the EOF frame arrived
     */
    byte[] nextFrame();

    /** The remaining data frames, until EOF. */
    Iterator<byte[]> frames();

    /**
     * The remaining records of a RAW exchange, decoded with the command's column list (default
     * {@code ts,data}); fields the command did not ask for read as -1 or null.
     *
     * @throws IllegalArgumentException when the command's column list is not a RAW one
     */
    Iterable<Record> records();

    /** Whether the EOF frame arrived. */
    boolean done();

    /** Data frames received so far. */
    long frameCount();

    /** Bytes of data frames received so far. */
    long byteCount();

    /** Stops reading; an unfinished reply is abandoned (the consumer reconnects before its next query). */
    @Override
    void close();
}
