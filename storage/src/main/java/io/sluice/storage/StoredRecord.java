package io.sluice.storage;

import java.util.List;

/** A record read back from a shard or log, with the offset it was stored at. */
public record StoredRecord(long offset, Record record) {

    public long timestamp() {
        return record.timestamp();
    }

    public byte[] key() {
        return record.key();
    }

    public byte[] value() {
        return record.value();
    }

    public List<String> tags() {
        return record.tags();
    }

    public List<Header> headers() {
        return record.headers();
    }
}
