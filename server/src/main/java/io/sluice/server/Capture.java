package io.sluice.server;

import io.sluice.server.metrics.ExchangeMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.broker.routing.Tap;
import io.sluice.broker.sys.SysTopics;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicFilter;
import io.sluice.server.config.ConfigError;
import io.sluice.server.config.ExchangeConfig;
import io.sluice.server.config.SluiceConfig;
import io.sluice.exchange.Durability;
import io.sluice.exchange.Exchange;
import io.sluice.exchange.Exchanges;
import io.sluice.query.QueryServerSettings;
import io.sluice.query.QueryServers;
import io.sluice.storage.LogScheduler;
import io.sluice.stream.PluginRegistry;
import io.sluice.stream.StreamPlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.BindException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The capture side of the server: the stream plugins, one exchange per {@code exchange_client}
 * block, and the taps through which the broker feeds them. Opening fails start-up with the key
 * path of whatever is wrong; closing writes everything the exchanges still hold. The flusher and
 * cleaner threads of the exchanges' write-ahead logs ({@code durability = wal}) are shared by all
 * exchanges, owned here and stopped after the exchanges closed.
 */
final class Capture implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Capture.class);

    private final Exchanges exchanges;
    private final QueryServers queries;
    private final LogScheduler logs;
    private final List<Tap> taps = new ArrayList<>();

    private Capture(Exchanges exchanges, QueryServers queries, LogScheduler logs) {
        this.exchanges = exchanges;
        this.queries = queries;
        this.logs = logs;
        for (Exchange exchange : exchanges.all()) {
            taps.add(new ExchangeTap(exchange));
        }
    }

    static Capture open(SluiceConfig config) {
        checkTopics(config.exchanges());
        PluginRegistry plugins = plugins(config);
        LogScheduler logs = writeAheadLogThreads(config.exchanges());
        List<Exchange> opened = new ArrayList<>();
        try {
            for (ExchangeConfig exchange : config.exchanges()) {
                opened.add(open(exchange, plugins, logs));
            }
        } catch (RuntimeException e) {
            closeAll(opened);
            closeQuietly(logs);
            throw e;
        }
        Exchanges exchanges = Exchanges.of(opened);
        try {
            return new Capture(exchanges, openQueries(config.exchanges(), exchanges), logs);
        } catch (RuntimeException e) {
            closeQuietly(exchanges);
            closeQuietly(logs);
            throw e;
        }
    }

    /**
     * Each exchange's topic filter, parsed as the broker's router parses a tap's filter, so that a
     * bad one stops start-up naming its key before anything is opened.
     */
    private static void checkTopics(List<ExchangeConfig> configs) {
        for (ExchangeConfig config : configs) {
            try {
                TopicFilter.parse(config.exchange().topic(), 0);
            } catch (InvalidTopicException e) {
                throw new ConfigError(config.path() + ".topic", "is not a valid MQTT topic filter: " + e.getMessage(), e);
            }
        }
    }

    /** Two flusher threads and a cleaner for every write-ahead log, or null when no exchange has one. */
    private static LogScheduler writeAheadLogThreads(List<ExchangeConfig> configs) {
        for (ExchangeConfig config : configs) {
            if (config.exchange().durability() == Durability.WAL) {
                return new LogScheduler("capture");
            }
        }
        return null;
    }

    private static void closeQuietly(LogScheduler logs) {
        if (logs != null) {
            logs.close();
        }
    }

    /** One query server per exchange, on its {@code exchange_url}. */
    private static QueryServers openQueries(List<ExchangeConfig> configs, Exchanges exchanges) {
        Map<Exchange, QueryServerSettings> settings = new LinkedHashMap<>();
        for (ExchangeConfig config : configs) {
            settings.put(exchanges.get(config.exchange().name()), config.query());
        }
        try {
            return QueryServers.open(settings);
        } catch (BindException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private static void closeQuietly(Exchanges exchanges) {
        try {
            exchanges.close();
        } catch (IOException e) {
            LOG.error("exchanges failed to close after a failed start", e);
        }
    }

    /** The built-in stream plugins and those of the jars in {@code plugins.dir}. */
    private static PluginRegistry plugins(SluiceConfig config) {
        PluginRegistry plugins = PluginRegistry.withBuiltIns();
        try {
            for (StreamPlugin plugin : plugins.loadDirectory(config.pluginsDir())) {
                LOG.info("stream plugin {} ({}) loaded from {}", plugin.id(), plugin.name(), config.pluginsDir());
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new ConfigError("plugins.dir", e.getMessage(), e);
        }
        return plugins;
    }

    private static Exchange open(ExchangeConfig config, PluginRegistry plugins, LogScheduler logs) {
        try {
            return Exchange.open(config.exchange(), plugins, logs);
        } catch (IllegalArgumentException e) {
            throw ConfigError.in(config.path(), e);
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

    /** Adds the exchanges' counters to {@code $SYS} and {@code /metrics}. */
    void registerMetrics(SysTopics sysTopics, PrometheusRegistry registry) {
        if (exchanges.all().isEmpty()) {
            return;
        }
        ExchangeMetrics metrics = new ExchangeMetrics(exchanges, queries);
        registry.register(metrics);
        sysTopics.addSource(metrics::sysValues);
    }

    /** The query servers, one per exchange. */
    QueryServers queries() {
        return queries;
    }

    /**
     * Stops answering queries, then writes every buffered, queued and spilled batch to Parquet,
     * exchange by exchange (a query needs its exchange open, so the servers go first).
     */
    @Override
    public void close() {
        queries.close();
        try {
            exchanges.close();
        } catch (IOException e) {
            LOG.error("not every exchange could write what it held at shutdown: {}", e.getMessage(), e);
        } finally {
            closeQuietly(logs);
        }
    }
}
