package io.sluice.storage;

/** The adapter contract on the memory engine. */
class MemoryEngineContractTest extends StorageAdapterContract {
    @Override
    Engine engine() {
        return Engine.MEMORY;
    }
}
