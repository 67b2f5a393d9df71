package io.sluice.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The writer process of {@link KillNineTest}: writes records (singly and in batches of three) and
 * commits a group offset every tenth record, printing each acknowledgement as it returns, until the
 * test kills it with SIGKILL.
 *
 * <p>Usage: {@code CrashingWriter <adapter dir> <engine> <flush> <enable_cache>}. Prints
 * {@code ACK <offset> <value> .} per record and {@code COMMIT <offset> .} per group-offset commit.
 */
public final class CrashingWriter {
    static final String SHARD = "crash_0";
    static final String GROUP = "readers";

    private CrashingWriter() {
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        Engine engine = Engine.fromConfig(args[1]);
        LogSettings log = LogSettings.builder().segmentBytes(64 * 1024).retentionMs(LogSettings.UNLIMITED)
                .flush(FlushPolicy.fromConfig(args[2])).build();
        StorageAdapterSettings settings = StorageAdapterSettings.defaults().withEnableCache(Boolean.parseBoolean(args[3]));
        StorageAdapter adapter = StorageAdapter.open(dir, null, settings);
        if (!adapter.shardExists(SHARD)) {
            adapter.createShard(SHARD, new ShardSettings(engine, log));
        }
        System.out.println("READY .");
        for (long sequence = 0; ; ) {
            List<Record> batch = new ArrayList<>();
            int size = sequence % 5 == 0 ? 3 : 1;
            for (int i = 0; i < size; i++) {
                batch.add(Record.ofValue(("v" + (sequence + i)).getBytes(StandardCharsets.UTF_8), System.currentTimeMillis()));
            }
            long[] offsets = size == 1 ? new long[] {adapter.write(SHARD, batch.get(0))} : adapter.batchWrite(SHARD, batch);
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < size; i++) {
                out.append("ACK ").append(offsets[i]).append(" v").append(sequence + i).append(" .\n");
                if ((sequence + i) % 10 == 0) {
                    adapter.commitOffset(GROUP, SHARD, offsets[i] + 1);
                    out.append("COMMIT ").append(offsets[i] + 1).append(" .\n");
                }
            }
            System.out.print(out);
            System.out.flush();
            sequence += size;
        }
    }
}
