package io.sluice.storage;

/** A call named a shard that the storage adapter does not hold. */
public final class UnknownShardException extends StorageException {
    private final String shard;

    public UnknownShardException(String shard) {
        super("unknown shard '" + shard + "'");
        this.shard = shard;
    }

    public String shard() {
        return shard;
    }
}
