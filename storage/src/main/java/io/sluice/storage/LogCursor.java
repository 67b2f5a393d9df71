package io.sluice.storage;

import java.util.List;

/**
 * Reads a {@link Log}'s records in offset order from a start offset up to the high watermark it was
 * created with: {@code while (cursor.next()) { cursor.offset(); cursor.value(); ... }}. No per-record
 * allocation unless the caller copies a key, value or tags. If the start was trimmed meanwhile, it
 * continues at the first record still present. One thread; close it when done.
 */
public interface LogCursor extends AutoCloseable {

    /**
     * Moves to the next record; false at the end.
     *
     * @throws CorruptRecordException naming the file and position when a record below the high
     *                                watermark cannot be read
     */
    boolean next();

    long offset();

    long timestamp();

    boolean hasKey();

    /** A record with a key and no value. */
    boolean isTombstone();

    /** A copy of the key, or null. */
    byte[] key();

    /** A copy of the value, or null. */
    byte[] value();

    List<String> tags();

    /** Compares the key without copying it. */
    boolean keyEquals(byte[] key);

    /** True when one of the tags has exactly these UTF-8 bytes; no copying. */
    boolean hasTag(byte[] utf8Tag);

    /** Key, value and tag bytes of the current record, what read limits count. */
    int payloadBytes();

    /** The current record, copied. */
    StoredRecord toStoredRecord();

    @Override
    void close();
}
