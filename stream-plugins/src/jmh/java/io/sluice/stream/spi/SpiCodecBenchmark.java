package io.sluice.stream.spi;

import io.sluice.stream.CaptureBatch;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.CommandException;
import io.sluice.stream.DecodeSink;
import io.sluice.stream.QueryCommand;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * SPI encode and decode of one batch of {@value #ROWS} messages per invocation, each message
 * holding {@code signals} signals of 8 payload bytes out of 64 typeids. Scores are messages per
 * second; the GC profiler ({@code -prof gc}) gives bytes allocated per message.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SpiCodecBenchmark {

    static final int ROWS = 4096;

    @Param({"4", "32"})
    int signals;

    private final SpiCodec codec = new SpiCodec("bench");
    private CaptureBatch batch;
    private ColumnBatch encoded;
    private QueryCommand all;
    private QueryCommand two;
    private final ByteBuffer frame = ByteBuffer.allocate(1 << 24);
    private final DecodeSink sink = length -> frame.position() + length <= frame.capacity() ? frame : frame.clear();

    @Setup
    public void setUp() throws CommandException {
        Random random = new Random(7);
        long[] ts = new long[ROWS];
        long[] offsets = new long[ROWS];
        String[] topics = new String[ROWS];
        byte[][] payloads = new byte[ROWS][];
        for (int i = 0; i < ROWS; i++) {
            ts[i] = 1_700_000_000_000L + i;
            offsets[i] = i;
            topics[i] = "cars/" + (i % 16) + "/spi";
            ByteBuffer payload = ByteBuffer.allocate(signals * 12);
            int first = random.nextInt(64);
            for (int s = 0; s < signals; s++) {
                byte[] value = new byte[8];
                random.nextBytes(value);
                payload.put((byte) 0x55).putShort((short) (0x1000 + (first + s) % 64)).put((byte) (0x80 | 8)).put(value);
            }
            payloads[i] = payload.array();
        }
        batch = new CaptureBatch(ts, offsets, topics, payloads, 0, ROWS).forWrite();
        encoded = codec.encode(batch);
        all = codec.parseCommand("sync-0-" + Long.MAX_VALUE);
        two = codec.parseCommand("sync-0-" + Long.MAX_VALUE + "-10011020");
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public ColumnBatch encode() {
        return codec.encode(batch);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public ByteBuffer decodeAllSignals() {
        frame.clear();
        codec.decode(encoded, all, sink);
        return frame;
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public ByteBuffer decodeTwoSignals() {
        frame.clear();
        codec.decode(encoded, two, sink);
        return frame;
    }
}
