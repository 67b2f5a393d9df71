package io.sluice.storage;

/**
 * The log failed an earlier write or fsync, so nothing more is accepted: after a failed fsync the
 * state of the page cache is unknown and retrying could claim durability that does not exist.
 */
public final class LogOfflineException extends StorageException {
    public LogOfflineException(String log, Throwable cause) {
        super("log '" + log + "' is offline after an earlier I/O failure: " + cause.getMessage(), cause);
    }
}
