package io.sluice.broker.server;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.broker.Tap;
import io.sluice.broker.metrics.SysTopics;
import io.sluice.broker.routing.InvalidTopicException;
import io.sluice.broker.server.config.ConfigError;
import io.sluice.broker.server.config.ExchangeConfig;
import io.sluice.broker.server.config.SluiceConfig;
import io.sluice.exchange.Exchange;
import io.sluice.exchange.Exchanges;
import io.sluice.stream.PluginRegistry;
import io.sluice.stream.StreamPlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The capture side of the server: the stream plugins, one exchange per {@code exchange_client}
 * block, and the taps through which the broker feeds them. Opening fails start-up with the key
 * path of whatever is wrong; closing writes everything the exchanges still hold.
 */
final class Capture implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Capture.class);

    private final List<ExchangeConfig> configs;
    private final Exchanges exchanges;
    private final List<Tap> taps = new ArrayList<>();

    private Capture(List<ExchangeConfig> configs, Exchanges exchanges) {
        this.configs = configs;
        this.exchanges = exchanges;
        for (Exchange exchange : exchanges.all()) {
            taps.add(new ExchangeTap(exchange));
        }
    }

    static Capture open(SluiceConfig config) {
        PluginRegistry plugins = plugins(config);
        List<Exchange> opened = new ArrayList<>();
        try {
            for (ExchangeConfig exchange : config.exchanges()) {
                opened.add(open(exchange, plugins));
            }
        } catch (RuntimeException e) {
            closeAll(opened);
            throw e;
        }
        return new Capture(config.exchanges(), Exchanges.of(opened));
    }

    /** The built-in stream plugins and those of the jars in {@code plugins.dir}. */
    private static PluginRegistry plugins(SluiceConfig config) {
        PluginRegistry plugins = PluginRegistry.withBuiltIns();
        try {
            for (StreamPlugin plugin : plugins.loadDirectory(config.pluginsDir())) {
                LOG.info("stream plugin {} ({}) loaded from {}", plugin.id(), plugin.name(), config.pluginsDir());
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new ConfigError("plugins.dir", e.getMessage());
        }
        return plugins;
    }

    private static Exchange open(ExchangeConfig config, PluginRegistry plugins) {
        try {
            return Exchange.open(config.exchange(), plugins);
        } catch (IllegalArgumentException e) {
            throw ExchangeConfig.relative(config.path(), e);
        } catch (IOException e) {
            throw new IllegalStateException("exchange '" + config.exchange().name() + "' cannot open its data in "
                    + config.exchange().parquet().dir() + ": " + e.getMessage(), e);
        }
    }

    private static void closeAll(List<Exchange> exchanges) {
        for (Exchange exchange : exchanges) {
            try {
                exchange.close();
            } catch (IOException | RuntimeException e) {
                LOG.error("exchange {}: failed to close after a failed start", exchange.name(), e);
            }
        }
    }

    List<Tap> taps() {
        return taps;
    }

    Exchanges exchanges() {
        return exchanges;
    }

    /** The key path of the topic filter that the router refused. */
    String pathOf(InvalidTopicException e) {
        for (ExchangeConfig config : configs) {
            if (e.getMessage().contains("'" + config.exchange().topic() + "'")) {
                return config.path() + ".topic";
            }
        }
        return "exchange_client";
    }

    /** Adds the exchanges' counters to {@code $SYS} and {@code /metrics}. */
    void registerMetrics(SysTopics sysTopics, PrometheusRegistry registry) {
        if (exchanges.all().isEmpty()) {
            return;
        }
        ExchangeMetrics metrics = new ExchangeMetrics(exchanges);
        registry.register(metrics);
        sysTopics.addSource(metrics::sysValues);
    }

    /** Writes every buffered, queued and spilled batch to Parquet, exchange by exchange. */
    @Override
    public void close() {
        try {
            exchanges.close();
        } catch (IOException e) {
            LOG.error("not every exchange could write what it held at shutdown: {}", e.getMessage(), e);
        }
    }
}
