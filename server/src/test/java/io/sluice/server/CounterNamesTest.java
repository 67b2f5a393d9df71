package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.bridges.BridgeCounter;
import io.sluice.exchange.ExchangeCounter;
import io.sluice.parquet.StoreCounter;
import io.sluice.query.QueryCounter;
import io.sluice.ringbus.RingCounter;
import io.sluice.storage.StorageCounter;
import io.sluice.stream.spi.SpiCounter;
import io.sluice.streams.StreamCounter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The modules' counter names are stable metric names: lower case, ending in {@code _total}, and
 * unique across the counters that {@link ExchangeMetrics} exports side by side under one prefix
 * (a clash would make every scrape fail), and within the storage counters.
 */
class CounterNamesTest {

    @Test
    void capturePipelineCountersHaveDistinctWellFormedNames() {
        List<String> names = new ArrayList<>();
        Stream.of(RingCounter.values()).map(RingCounter::metricName).forEach(names::add);
        Stream.of(StoreCounter.values()).map(StoreCounter::metricName).forEach(names::add);
        Stream.of(ExchangeCounter.values()).map(ExchangeCounter::metricName).forEach(names::add);
        Stream.of(QueryCounter.values()).map(QueryCounter::metricName).forEach(names::add);
        Stream.of(SpiCounter.values()).map(SpiCounter::metricName).forEach(names::add);
        assertDistinctAndWellFormed(names);
    }

    @Test
    void storageCountersHaveDistinctWellFormedNames() {
        assertDistinctAndWellFormed(Stream.of(StorageCounter.values()).map(StorageCounter::metricName).toList());
    }

    @Test
    void streamCountersHaveDistinctWellFormedNames() {
        assertDistinctAndWellFormed(Stream.of(StreamCounter.values()).map(StreamCounter::metricName).toList());
    }

    @Test
    void bridgeCountersHaveDistinctWellFormedNames() {
        assertDistinctAndWellFormed(Stream.of(BridgeCounter.values()).map(BridgeCounter::metricName).toList());
    }

    static void assertDistinctAndWellFormed(List<String> names) {
        assertEquals(names.size(), new HashSet<>(names).size(), "duplicate metric names in " + names);
        for (String name : names) {
            assertTrue(name.matches("[a-z][a-z0-9_]*_total"), name);
        }
    }
}
