package io.sluice.ringbus;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The tee: {@link Ring#offer} from one or two broker threads while the ring thread keys and
 * batches every message and hands batches to a sink that keeps nothing. A full ring is retried,
 * so the score is what the ring thread sustains. Run with {@code -prof gc} to see the
 * allocation per offer (the batches' arrays, amortised; nothing per message).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class OfferBenchmark {

    private static final byte[] PAYLOAD = new byte[64];
    private Ring ring;

    @Setup(Level.Trial)
    public void setUp() {
        BatchSink discard = new BatchSink() {
            @Override
            public void started(Batch first) {
            }

            @Override
            public boolean tryHandOff(Batch sealed, Batch next) {
                return true;
            }

            @Override
            public void handOff(Batch sealed, Batch next) {
            }

            @Override
            public void spilled(SpilledBatch spilled, Batch sealed, Batch next) {
            }

            @Override
            public void logged(Batch sealed, Batch next) {
            }

            @Override
            public void dropped(Batch sealed, Batch next) {
            }
        };
        KeySource keys = new KeySource() {
            private long lastTs;
            private long next;

            @Override
            public long ts(long arrivalMs) {
                lastTs = Math.max(lastTs, arrivalMs);
                return lastTs;
            }

            @Override
            public long nextOffset() {
                return next++;
            }
        };
        ring = new Ring("bench", RingSettings.defaults().withCap(10_000).withFlushInterval(Duration.ofMillis(100)), keys, discard, null);
        ring.start();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ring.close();
    }

    @Benchmark
    @Threads(1)
    public boolean oneProducer() {
        return offer();
    }

    @Benchmark
    @Threads(2)
    public boolean twoProducers() {
        return offer();
    }

    private boolean offer() {
        while (!ring.offer("plant/line-1/sensor", PAYLOAD, 1_700_000_000_000L)) {
            Thread.onSpinWait();
        }
        return true;
    }
}
