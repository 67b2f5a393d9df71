package io.sluice.storage;

/**
 * Writes {@link EngineReadBenchmark}'s kept shards ahead of a run, so the run measures reads only:
 * {@code java -Dsluice.bench.fixtures=<dir> -cp … io.sluice.storage.EngineReadFixtures <engine>
 * <records> <settle seconds>}. The shard is written, reopened, read once by key and tag (the
 * segment engine's first lookup writes the sealed segments' term indexes) and left open for the
 * settle time, in which RocksDB compacts the freshly written tables.
 */
public final class EngineReadFixtures {
    private EngineReadFixtures() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || System.getProperty("sluice.bench.fixtures") == null) {
            throw new IllegalArgumentException("usage: -Dsluice.bench.fixtures=<dir> EngineReadFixtures <engine> <records> "
                    + "<settle seconds>");
        }
        EngineReadBenchmark shard = new EngineReadBenchmark();
        shard.engine = args[0];
        shard.records = Integer.parseInt(args[1]);
        shard.blockCacheMiB = 64;
        shard.write();
        try {
            shard.readByKey();
            shard.readByTag();
            Thread.sleep(Long.parseLong(args[2]) * 1000);
        } finally {
            shard.close();
        }
    }
}
