package io.sluice.examples.json;

/**
 * One decoded JSON record, a record of a JSON query reply (integers big-endian):
 *
 * <pre>
 *   0                   8
 *  +-------------------+------------+---------+------------+---------+-----
 *  | ts u64            | present u8 | value   | present u8 | value   | ...   one pair per selected column
 *  +-------------------+------------+---------+------------+---------+-----
 *
 *  present: 1 when a value follows, 0 when the row has none (nothing follows)
 *  value, by the column's type:
 *    double field             8 bytes, IEEE 754 binary64
 *    long field, offset       8 bytes, two's complement
 *    boolean field            1 byte, 0 or 1
 *    string field, topic      len u32 | len bytes of UTF-8
 *    raw                      len u32 | the payload as published
 * </pre>
 *
 * The selected columns are those of the command in its order, by default every field in
 * configured order followed by {@code raw}. A field is absent (0) when its payload lacked it,
 * had it with the wrong type or {@code null}, or was not JSON; {@code raw} is present exactly when
 * the payload was kept raw; {@code offset} and {@code topic} are always present. Every captured
 * message in the range gives one record. Records follow each other without padding.
 *
 * <p>Example: fields {@code ["speed:double", "vin:string", "ok:boolean"]}, the message
 * {@code {"speed":21.5,"vin":"WVW1","ok":true}} captured at ts 1700000000000, default columns:
 *
 * <pre>
 *  00 00 01 8B CF E5 68 00         ts
 *  01 40 35 80 00 00 00 00 00      speed = 21.5
 *  01 00 00 00 04 57 56 57 31      vin = "WVW1"
 *  01 01                           ok = true
 *  00                              raw: none, every field was found
 * </pre>
 */
public final class JsonRecordDescriptor {

    /** Offset of the capture timestamp, epoch ms. */
    public static final int TS_OFFSET = 0;
    /** Offset of the first column's presence byte. */
    public static final int COLUMNS_OFFSET = TS_OFFSET + Long.BYTES;
    /** Presence byte of a column with a value. */
    public static final byte PRESENT = 1;
    /** Presence byte of a column without a value. */
    public static final byte ABSENT = 0;
    /** Width of the length prefix of text and bytes. */
    public static final int LENGTH_PREFIX = Integer.BYTES;

    private JsonRecordDescriptor() {
    }
}
