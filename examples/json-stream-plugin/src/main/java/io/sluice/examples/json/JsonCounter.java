package io.sluice.examples.json;

import io.sluice.stream.PluginCounter;

/**
 * The counters a JSON codec keeps per exchange, counted when a batch is written (not when a
 * query reads data still in memory). A payload missing one field and mistyping another counts
 * in both of those counters; every payload counted here is kept raw.
 */
public enum JsonCounter implements PluginCounter {
    NOT_JSON("json_payloads_not_json_total", "payloads that are not one JSON object, kept raw"),
    MISSING_FIELDS("json_payloads_missing_fields_total", "payloads lacking a configured field, kept raw"),
    WRONG_TYPES("json_payloads_wrong_type_total", "payloads with a configured field of the wrong type, kept raw");

    private final String metricName;
    private final String help;

    JsonCounter(String metricName, String help) {
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
