package io.sluice.stream;

/**
 * A counter a stream codec keeps about the payloads it encodes (SPI's malformed payloads, say),
 * with a stable metric name. Plugins declare theirs as one enum, like the modules' counter enums;
 * the exchange reports them beside its own counters, under the exchange's label.
 */
public interface PluginCounter {

    /**
     * The metric name, stable across releases: lower case, {@code _}-separated, starting with the
     * plugin's name and ending in {@code _total}, e.g. {@code spi_malformed_payloads_total}.
     */
    String metricName();

    /** What the counter counts, one line. */
    String help();
}
