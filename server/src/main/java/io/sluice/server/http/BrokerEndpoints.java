package io.sluice.server.http;

import io.sluice.broker.Broker;
import io.sluice.broker.metrics.BrokerCounter;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * NanoMQ's broker-wide reads: {@code GET /api/v4/brokers}, {@code /nodes} and {@code /metrics},
 * and Sluice's {@code /metrics/history} (the last fifteen minutes, for the dashboard's plots).
 */
public final class BrokerEndpoints {
    private static final DateTimeFormatter DATETIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT)
            .withZone(ZoneId.systemDefault());

    private final Broker broker;
    private final String version;
    private final MetricsHistory history;
    private final BasicAuth auth;

    public BrokerEndpoints(Broker broker, String version, MetricsHistory history, BasicAuth auth) {
        this.broker = broker;
        this.version = version;
        this.history = history;
        this.auth = auth;
    }

    /** {@code GET /api/v4/brokers}: this node, in NanoMQ's shape. */
    public Reply brokers(ApiRequest request) {
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("datetime", DATETIME.format(Instant.now()));
        node.put("node_status", "Running");
        node.put("sysdescr", "Sluice MQTT broker");
        node.put("uptime", uptime());
        node.put("uptime_seconds", uptimeSeconds());
        node.put("version", version);
        return Reply.data(List.of(node));
    }

    /** {@code GET /api/v4/nodes}: this node's connections. */
    public Reply nodes(ApiRequest request) {
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("connections", broker.connectedClients().get());
        node.put("node_status", "Running");
        node.put("uptime", uptime());
        node.put("version", version);
        return Reply.data(List.of(node));
    }

    /** {@code GET /api/v4/metrics}: every broker counter by name, and the gauges. */
    public Reply metrics(ApiRequest request) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("connections.count", broker.connectedClients().get());
        values.put("connections.open", broker.openConnections().get());
        values.put("sessions.count", broker.sessions().size());
        values.put("subscriptions.count", broker.router().subscriptionCount());
        values.put("retained.count", broker.router().retained().size());
        values.put("uptime_seconds", uptimeSeconds());
        values.put("http.auth_failures", auth.failures());
        for (BrokerCounter counter : BrokerCounter.values()) {
            values.put(counter.name().toLowerCase(Locale.ROOT).replaceFirst("_", "."), broker.metrics().get(counter));
        }
        return Reply.data(values);
    }

    /** {@code GET /api/v4/metrics/history?since=<ms>}: the samples after {@code since} (all fifteen minutes without it). */
    public Reply history(ApiRequest request) throws ApiException {
        long since = request.longQuery("since", 0, 0, Long.MAX_VALUE);
        Map<String, Object> data = history.since(since);
        data.put("uptime_seconds", uptimeSeconds());
        data.put("version", version);
        return Reply.data(data);
    }

    private long uptimeSeconds() {
        return (System.currentTimeMillis() - broker.startedMillis()) / 1000;
    }

    /** NanoMQ's way: {@code 2 Hours, 41 minutes, 50 seconds}. */
    private String uptime() {
        long s = uptimeSeconds();
        return String.format(Locale.ROOT, "%d Hours, %d minutes, %d seconds", s / 3600, s % 3600 / 60, s % 60);
    }
}
