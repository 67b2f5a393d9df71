package io.sluice.server.http;

import io.netty.handler.codec.http.HttpMethod;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.bridges.Bridges;
import io.sluice.bridges.LocalPublisher;
import io.sluice.broker.Broker;
import io.sluice.exchange.Exchanges;
import io.sluice.streams.Streams;

import java.util.List;
import java.util.function.Supplier;

/**
 * The routes of the HTTP server: {@code /metrics} and {@code /health} as before, NanoMQ's API v4,
 * Sluice's own endpoints (exchanges and their records, bridges, streams, metrics history) and the
 * dashboard. Owns the samplers behind the dashboard's plots; close it with the server.
 */
public final class HttpApi implements AutoCloseable {
    /**
     * What the API reads and acts on.
     *
     * @param broker        the broker: clients, subscriptions, retained messages, counters
     * @param version       Sluice's version
     * @param registry      what {@code /metrics} serves
     * @param running       false once the server is stopping ({@code /health} then says DOWN)
     * @param health        further health details
     * @param exchanges     the exchanges
     * @param bridges       the bridges, or null
     * @param streams       the streams, or null
     * @param publisher     publishes into the broker as a client's PUBLISH is
     * @param config        the validated configuration, shown with secrets masked
     * @param reload        reloads what SIGHUP reloads
     * @param reloadTargets what that is
     * @param auth          the API's credentials
     * @param maxRecords    {@code http_server.max_records}
     */
    public record Parts(Broker broker, String version, PrometheusRegistry registry,
                        Supplier<List<String>> problems, Exchanges exchanges, Bridges bridges, Streams streams,
                        LocalPublisher publisher, Object config, Runnable reload, Supplier<List<String>> reloadTargets,
                        BasicAuth auth, int maxRecords) {
    }

    private final Routes routes = new Routes();
    private final MetricsHistory history;
    private final CaptureRates rates;

    public HttpApi(Parts parts) {
        this.history = new MetricsHistory(parts.broker());
        this.rates = new CaptureRates(parts.exchanges(), parts.broker().timer());
        monitoring(parts);
        nanoMq(parts);
        sluice(parts);
        dashboard();
    }

    private void monitoring(Parts parts) {
        PrometheusEndpoint prometheus = new PrometheusEndpoint(parts.registry());
        routes.add(HttpMethod.GET, "/metrics", Routes.Access.METRICS, prometheus)
                .add(HttpMethod.GET, "/health", Routes.Access.METRICS,
                        new HealthEndpoint(parts.problems()))
                .get("/api/v4/prometheus", prometheus);
    }

    private void nanoMq(Parts parts) {
        BrokerEndpoints broker = new BrokerEndpoints(parts.broker(), parts.version(), history, parts.auth());
        ClientEndpoints clients = new ClientEndpoints(parts.broker());
        SubscriptionEndpoints subscriptions = new SubscriptionEndpoints(parts.broker());
        PublishEndpoint publish = new PublishEndpoint(parts.publisher(), parts.broker().settings().maxTopicLevels());
        ReloadEndpoint reload = new ReloadEndpoint(parts.reload(), parts.reloadTargets());
        routes.get("/api/v4", request -> Reply.data(List.of("brokers", "nodes", "metrics", "prometheus", "clients",
                        "subscriptions", "topic-tree", "mqtt/publish", "mqtt/publish_batch", "configuration", "reload",
                        "exchanges", "bridges", "streams", "metrics/history")))
                .get("/api/v4/brokers", broker::brokers)
                .get("/api/v4/nodes", broker::nodes)
                .get("/api/v4/metrics", broker::metrics)
                .get("/api/v4/metrics/history", broker::history)
                .get("/api/v4/clients", clients::list)
                .get("/api/v4/clients/{clientid}", clients::get)
                .get("/api/v4/clients/username/{username}", clients::ofUser)
                .delete("/api/v4/clients/{clientid}", clients::kick)
                .get("/api/v4/subscriptions", subscriptions::list)
                .get("/api/v4/subscriptions/{clientid}", subscriptions::ofClient)
                .get("/api/v4/topic-tree", new TopicTreeEndpoint(parts.broker()))
                .post("/api/v4/mqtt/publish", publish::publish)
                .post("/api/v4/mqtt/publish_batch", publish::publishBatch)
                .get("/api/v4/configuration", new ConfigurationEndpoint(parts.config()))
                .get("/api/v4/reload", reload::list)
                .post("/api/v4/reload", reload::reload);
    }

    private void sluice(Parts parts) {
        ExchangeEndpoints exchanges = new ExchangeEndpoints(parts.exchanges(), rates);
        BridgeEndpoints bridges = new BridgeEndpoints(parts.bridges());
        StreamEndpoints streams = new StreamEndpoints(parts.streams());
        routes.get("/api/v4/exchanges", exchanges::list)
                .get("/api/v4/exchanges/{name}", exchanges::get)
                .get("/api/v4/exchanges/{name}/records", new RecordsEndpoint(parts.exchanges(), parts.maxRecords()))
                .get("/api/v4/bridges", bridges::list)
                .get("/api/v4/bridges/{name}", bridges::get)
                .get("/api/v4/streams", streams::list)
                .get("/api/v4/streams/{name}", streams::get);
    }

    private void dashboard() {
        DashboardFiles files = new DashboardFiles();
        routes.add(HttpMethod.GET, "/", Routes.Access.OPEN, files::index)
                .add(HttpMethod.GET, "/static/{*file}", Routes.Access.OPEN, files::file)
                .add(HttpMethod.GET, "/webjars/{name}/{*file}", Routes.Access.OPEN, files::webjar);
    }

    public Routes routes() {
        return routes;
    }

    @Override
    public void close() {
        history.close();
        rates.close();
    }
}
