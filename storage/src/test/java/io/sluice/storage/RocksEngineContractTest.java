package io.sluice.storage;

/** The adapter contract on the RocksDB engine. */
class RocksEngineContractTest extends StorageAdapterContract {
    @Override
    Engine engine() {
        return Engine.ROCKSDB;
    }
}
