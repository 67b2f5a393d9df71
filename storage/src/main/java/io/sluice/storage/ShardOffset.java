package io.sluice.storage;

/** Where a record written to a topic went: the shard and the offset. */
public record ShardOffset(String shard, long offset) {
}
