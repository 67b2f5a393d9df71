package io.sluice.storage;

import java.util.Arrays;
import java.util.Objects;

/**
 * One record header, as Kafka's record headers: a name and an optional value. A record keeps its
 * headers in order, and a name may repeat. The value array is not copied.
 *
 * @param key   the header's name, never null
 * @param value its bytes, or null
 */
public record Header(String key, byte[] value) {

    public Header {
        Objects.requireNonNull(key, "header key");
    }

    /** Key and value bytes, roughly: what read limits in bytes count. */
    int payloadBytes() {
        return key.length() + (value == null ? 0 : value.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Header other && key.equals(other.key) && Arrays.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Header[" + key + "=" + (value == null ? "null" : value.length + "B") + "]";
    }
}
