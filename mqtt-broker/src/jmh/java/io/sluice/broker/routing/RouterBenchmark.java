package io.sluice.broker.routing;

import io.sluice.broker.message.Delivery;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.metrics.BrokerMetrics;
import io.sluice.broker.retain.RetainedStore;
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

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Routing one PUBLISH through the subscription trie to its subscribers, with 100,000 unrelated
 * subscriptions in the tree: the cost must follow the number of matching subscribers only.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RouterBenchmark {
    @Param({"1", "50"})
    int subscribers;

    private Router router;
    private Message message;

    /** A subscriber that only consumes deliveries. */
    private static final class Sink implements Subscriber {
        private final String id;
        private final Blackhole bh;

        Sink(String id, Blackhole bh) {
            this.id = id;
            this.bh = bh;
        }

        @Override
        public String clientId() {
            return id;
        }

        @Override
        public boolean offer(Delivery delivery) {
            bh.consume(delivery);
            return true;
        }

        @Override
        public boolean isOnline() {
            return true;
        }

        @Override
        public boolean isPersistent() {
            return false;
        }
    }

    @Setup
    public void subscribe(Blackhole bh) throws InvalidTopicException {
        router = new Router(new RetainedStore(), List.of(), new BrokerMetrics());
        for (int i = 0; i < 100_000; i++) {
            router.subscribe(new Sink("other-" + i, bh), new Subscription(
                    TopicFilter.parse("devices/" + i + "/cmd", 0), 0, false, false, 0, 0));
        }
        for (int i = 0; i < subscribers; i++) {
            router.subscribe(new Sink("dashboard-" + i, bh), new Subscription(
                    TopicFilter.parse("plant/+/temperature", 0), 0, false, false, 0, 0));
        }
        message = new Message("plant/line7/temperature", new byte[64], 0, false, MessageProperties.NONE, "pub", 0);
    }

    @Benchmark
    public void publish() {
        router.publish(message);
    }
}
