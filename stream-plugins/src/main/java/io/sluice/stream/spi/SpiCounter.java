package io.sluice.stream.spi;

import io.sluice.stream.PluginCounter;

/**
 * The counters an SPI codec keeps per exchange, counted when a batch is written (not when a
 * query reads data still in memory), so each captured message counts once.
 */
public enum SpiCounter implements PluginCounter {
    MALFORMED_PAYLOADS("spi_malformed_payloads_total", "payloads that were not valid SPI, kept whole in the raw column"),
    REPEATED_SIGNALS("spi_repeated_signals_total", "signal frames replaced by a later frame of the same typeid in one payload");

    private final String metricName;
    private final String help;

    SpiCounter(String metricName, String help) {
        this.metricName = metricName;
        this.help = help;
    }

    @Override
    public String metricName() {
        return metricName;
    }

    @Override
    public String help() {
        return help;
    }
}
