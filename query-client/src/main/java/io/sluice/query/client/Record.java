package io.sluice.query.client;

/**
 * One decoded RAW record. Which fields it holds depends on the command's column list
 * ({@code ts,data} by default); a field not asked for reads as -1 ({@link #ts}, {@link #offset}) or
 * null ({@link #topic}, {@link #data}). Not to be implemented outside this library.
 */
public interface Record {

    /** The capture timestamp, epoch milliseconds, or -1. */
    long ts();

    /** The capture offset, or -1. */
    long offset();

    /** The MQTT topic it was published to, or null. */
    String topic();

    /** The payload exactly as published, or null. The array is the record's own. */
    byte[] data();
}
