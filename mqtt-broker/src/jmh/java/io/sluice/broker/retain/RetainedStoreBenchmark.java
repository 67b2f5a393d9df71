package io.sluice.broker.retain;

import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicFilter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/** Wildcard subscribe against a large retained store: cost must follow the matches, not the store size. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RetainedStoreBenchmark {
    @Param({"1000", "100000"})
    int topics;

    private RetainedStore store;
    private TopicFilter oneDevice;
    private TopicFilter oneSensorOfEveryDevice;

    @Setup
    public void fill() throws InvalidTopicException {
        store = new RetainedStore();
        int devices = topics / 100;
        for (int i = 0; i < topics; i++) {
            store.put(new Message("fleet/" + (i % devices) + "/sensor/" + (i / devices), new byte[16], 1, true,
                    MessageProperties.NONE, "bench", System.currentTimeMillis()));
        }
        oneDevice = TopicFilter.parse("fleet/7/sensor/+", 0);
        oneSensorOfEveryDevice = TopicFilter.parse("fleet/+/sensor/42", 0);
    }

    /** 100 matches, whatever the store size. */
    @Benchmark
    public void wildcardOverOneDevice(Blackhole bh) {
        store.match(oneDevice, 0, bh::consume);
    }

    /** One match per device: topics / 100 matches. */
    @Benchmark
    public void wildcardAcrossDevices(Blackhole bh) {
        store.match(oneSensorOfEveryDevice, 0, bh::consume);
    }
}
