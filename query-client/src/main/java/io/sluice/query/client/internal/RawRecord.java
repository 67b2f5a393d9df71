package io.sluice.query.client.internal;

import io.sluice.query.client.Record;

/** A decoded RAW record; absent fields are -1 or null. */
record RawRecord(long ts, long offset, String topic, byte[] data) implements Record {
}
