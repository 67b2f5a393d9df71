package io.sluice.exchange;

import java.util.Map;

/**
 * One exchange's state for {@code $SYS} and metrics.
 *
 * @param name            the exchange's name
 * @param topic           its topic filter
 * @param streamType      its plugin id
 * @param plugin          its plugin's name
 * @param files           published Parquet files
 * @param fileBytes       their total size
 * @param pendingBatches  batches handed up and not yet in a file (in memory or spilled)
 * @param spilledBatches  of those, the spilled ones
 * @param activeRows      rows in the batch the ring is filling
 * @param ringBacklog     messages offered and not yet taken by the ring thread
 * @param counters        every counter by metric name: ring, store, exchange, then the plugin's own counters
 */
public record ExchangeStatus(String name, String topic, int streamType, String plugin, int files, long fileBytes,
                             int pendingBatches, int spilledBatches, int activeRows, long ringBacklog, Map<String, Long> counters) {

    public ExchangeStatus {
        counters = Map.copyOf(counters);
    }
}
