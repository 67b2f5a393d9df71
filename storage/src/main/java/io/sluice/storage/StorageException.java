package io.sluice.storage;

/**
 * Base of every failure the storage module reports; the message always names the shard or log and,
 * where one is involved, the file, byte position or offset.
 */
public class StorageException extends RuntimeException {
    public StorageException(String message) {
        super(message);
    }

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
