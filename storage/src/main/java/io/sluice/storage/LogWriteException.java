package io.sluice.storage;

/**
 * A write to the log failed (a full disk, say) and left the log as it was: the records of the open
 * batch are still held, in order, and the next commit tries to write them again, so the log comes
 * back by itself once the disk takes writes again. Nothing of the failed batch is readable or
 * durable until then, so nothing waiting for it may be acknowledged. Unlike a failed fsync, this
 * does not take the log offline.
 */
public final class LogWriteException extends StorageException {
    public LogWriteException(String message, Throwable cause) {
        super(message, cause);
    }
}
