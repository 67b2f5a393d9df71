package io.sluice.storage;

/**
 * One stored record seen in place during a visiting read
 * ({@link StorageAdapter#readByOffset(String, long, int, int, java.util.function.Consumer)}): its
 * fields are read from the engine's own bytes and copied only into arrays the caller names, so a
 * reader that re-encodes records (the Kafka listener's fetch) allocates nothing per record. Valid
 * only inside the visit that hands it out; one thread.
 *
 * <p>The headers come as one run of bytes, encoded as Kafka's record headers are: the header count,
 * then for each header its name's length, the name (UTF-8), its value's length (-1 for no value)
 * and the value; every count and length a zig-zag varint (7 bits a byte, low group first, high bit
 * set on every byte but the last). A record without headers gives the single byte {@code 0}.
 */
public interface RecordFlyweight {

    long offset();

    /** Epoch milliseconds. */
    long timestamp();

    /** Bytes of the key; -1 for a record without one. */
    int keyLength();

    /** Bytes of the value; -1 for a record without one. */
    int valueLength();

    /** Copies the key to {@code destination} from index {@code at}; nothing for a record without one. */
    void copyKey(byte[] destination, int at);

    /** Copies the value to {@code destination} from index {@code at}; nothing for a record without one. */
    void copyValue(byte[] destination, int at);

    /** Bytes of the encoded headers, count included (see the class comment); 1 for a record without headers. */
    int headersSize();

    /** Copies the encoded headers ({@link #headersSize} bytes) to {@code destination} from index {@code at}. */
    void copyHeaders(byte[] destination, int at);
}
