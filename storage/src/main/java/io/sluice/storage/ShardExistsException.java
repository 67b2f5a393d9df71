package io.sluice.storage;

/** {@code createShard} named a shard that already exists. */
public final class ShardExistsException extends StorageException {
    private final String shard;

    public ShardExistsException(String shard) {
        super("shard '" + shard + "' already exists");
        this.shard = shard;
    }

    public String shard() {
        return shard;
    }
}
