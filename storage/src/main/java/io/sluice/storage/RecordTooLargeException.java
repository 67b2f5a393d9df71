package io.sluice.storage;

/** A record that cannot fit in one batch of a segment, whatever the log does. */
public final class RecordTooLargeException extends StorageException {
    public RecordTooLargeException(String log, int recordBytes, int limitBytes) {
        super("record of " + recordBytes + " bytes is too large for log '" + log + "': the limit is "
                + limitBytes + " bytes (segment_bytes less the batch header)");
    }
}
