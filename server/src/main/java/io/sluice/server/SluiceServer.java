package io.sluice.server;

import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.broker.Broker;
import io.sluice.server.metrics.BrokerCollector;
import io.sluice.server.metrics.StateMetrics;
import io.sluice.server.metrics.StreamMetrics;
import io.sluice.server.http.BasicAuth;
import io.sluice.server.http.HttpApi;
import io.sluice.server.http.HttpServer;
import io.sluice.server.config.HttpServerConfig;
import io.sluice.broker.sys.SysTopics;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.persistence.BrokerState;
import io.sluice.broker.retain.RetainedJournal;
import io.sluice.server.config.ListenerConfig;
import io.sluice.server.config.MonitoringConfig;
import io.sluice.server.config.SluiceConfig;
import io.sluice.broker.session.SessionJournal;
import io.sluice.net.EventLoops;
import io.sluice.net.ListenerSpec;
import io.sluice.broker.transport.MqttListener;
import io.sluice.net.tls.TlsContext;
import io.sluice.net.tls.TlsSettings;
import io.sluice.exchange.Exchange;
import io.sluice.exchange.Exchanges;
import io.sluice.broker.routing.Tap;
import io.sluice.streams.Streams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The running server: the broker engine, its listeners and whatever is wired to them. Built
 * from a validated {@link SluiceConfig}; {@link #close()} stops it gracefully, in the reverse
 * order of start-up.
 */
public final class SluiceServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceServer.class);

    /** How often the password, ACL and certificate files are looked at for changes. */
    private static final long RELOAD_POLL_MILLIS = 1_000;

    private final Broker broker;
    private final Capture capture;
    private final Streaming streaming;
    private final Bridging bridging;
    private final BrokerState state;
    private final EventLoops loops;
    private final List<MqttListener> listeners = new ArrayList<>();
    private final ReloadWatch reloads;
    private final Map<TlsSettings, TlsContext> tlsContexts = new HashMap<>();
    private final PrometheusRegistry metricsRegistry = new PrometheusRegistry();
    private SysTopics sysTopics;
    private HttpApi httpApi;
    private HttpServer httpServer;
    private volatile boolean stopping;

    private SluiceServer(Broker broker, Capture capture, Streaming streaming, Bridging bridging, BrokerState state,
                         EventLoops loops) {
        this.broker = broker;
        this.capture = capture;
        this.streaming = streaming;
        this.bridging = bridging;
        this.state = state;
        this.loops = loops;
        this.reloads = new ReloadWatch(broker.metrics(), broker.timer(), RELOAD_POLL_MILLIS);
    }

    /**
     * Starts everything the configuration describes, in this order: broker state, the capture
     * pipeline, the streams, the bridges' backlogs, the broker engine (with the state restored),
     * the bridges' connections, listeners (MQTT, then Kafka), monitoring. On failure, stops what
     * already started.
     */
    public static SluiceServer start(SluiceConfig config) {
        AccessControl access = AccessControl.load(config.auth());
        SluiceServer server = open(config, access);
        try {
            server.serve(config, access);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        for (MqttListener listener : server.listeners) {
            LOG.info("listener '{}' accepting MQTT on {} ({}, {})", listener.name(), listener.localAddress(),
                    listener.spec().scheme(), server.loops.isEpoll() ? "epoll" : "nio");
        }
        return server;
    }

    /** Restores the broker's state, then connects bridges, binds the listeners and starts monitoring. */
    private void serve(SluiceConfig config, AccessControl access) {
        if (state != null) {
            state.restoreInto(broker);
        }
        bridging.start(broker);
        access.watch(reloads);
        streaming.attach(broker);
        for (ListenerConfig listener : config.listeners()) {
            listeners.add(MqttListener.bind(spec(listener), broker, loops));
        }
        if (config.kafka() != null) {
            streaming.startKafka(config, access, broker, loops, tls(config.kafka().tls()));
        }
        reloads.start();
        startMonitoring(config, access);
    }

    /**
     * Opens the parts that hold data, in order (broker state, exchanges, streams, bridges' backlogs,
     * the broker engine); if one fails, closes those already open, newest first.
     */
    private static SluiceServer open(SluiceConfig config, AccessControl access) {
        Deque<AutoCloseable> opened = new ArrayDeque<>();
        try {
            BrokerState state = config.persistence().enabled() ? opened(opened, BrokerState.open(config.persistence())) : null;
            Capture capture = opened(opened, Capture.open(config));
            Streaming streaming = opened(opened, Streaming.open(config));
            Bridging bridging = opened(opened, Bridging.open(config.bridges()));
            Broker broker = newBroker(config, access, capture, streaming, bridging, state);
            return new SluiceServer(broker, capture, streaming, bridging, state, new EventLoops(config.ioThreads()));
        } catch (RuntimeException e) {
            for (AutoCloseable part : opened) {
                try {
                    part.close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    private static <T extends AutoCloseable> T opened(Deque<AutoCloseable> opened, T part) {
        opened.push(part);
        return part;
    }

    private static Broker newBroker(SluiceConfig config, AccessControl access, Capture capture, Streaming streaming,
                                    Bridging bridging, BrokerState state) {
        SessionJournal sessions = state == null ? SessionJournal.NONE : state.sessionJournal();
        RetainedJournal retained = state == null ? RetainedJournal.NONE : state.retainedJournal();
        List<Tap> taps = new ArrayList<>(capture.taps());
        taps.addAll(streaming.taps());
        taps.addAll(bridging.taps());
        try {
            return new Broker(config.mqtt(), taps, access.authenticator(), access.authorizer(), sessions, retained);
        } catch (InvalidTopicException e) {
            throw new IllegalStateException("the topic filters of exchanges, streams and bridges were checked when they opened", e);
        }
    }

    private static void closeQuietly(BrokerState state) {
        if (state != null) {
            state.close();
        }
    }

    /** What the transport needs for {@code listener}; TLS contexts are shared (ssl and wss) and reloaded when their files change. */
    private ListenerSpec spec(ListenerConfig listener) {
        return new ListenerSpec(listener.name(), listener.bind(), tls(listener.tls()), listener.webSocketPath(),
                listener.maxConnections(), listener.maxConnRate());
    }

    /** The TLS context of {@code settings} (null for none), shared by the listeners that use the same files. */
    private TlsContext tls(TlsSettings settings) {
        return settings == null ? null : tlsContexts.computeIfAbsent(settings, s -> {
            try {
                TlsContext context = new TlsContext(s);
                reloads.add("TLS certificate", context.files(), context::reload);
                return context;
            } catch (IOException e) {
                throw new IllegalStateException("listeners.ssl: " + e.getMessage(), e);
            }
        });
    }

    /** {@code $SYS} topics and, with {@code http_server}, the HTTP server: metrics, health, the API and the dashboard. */
    private void startMonitoring(SluiceConfig config, AccessControl access) {
        MonitoringConfig monitoring = config.monitoring();
        sysTopics = new SysTopics(broker, "sluice " + version(), monitoring.sysIntervalMillis());
        metricsRegistry.register(new BrokerCollector(broker));
        if (state != null) {
            StateMetrics stateMetrics = new StateMetrics(state);
            metricsRegistry.register(stateMetrics);
            sysTopics.addSource(stateMetrics::sysValues);
        }
        capture.registerMetrics(sysTopics, metricsRegistry);
        if (streaming.streams() != null) {
            StreamMetrics streamMetrics = new StreamMetrics(streaming.streams());
            metricsRegistry.register(streamMetrics);
            sysTopics.addSource(streamMetrics::sysValues);
        }
        bridging.registerMetrics(sysTopics, metricsRegistry);
        sysTopics.start();
        JvmMetrics.builder().register(metricsRegistry);
        if (monitoring.httpServer()) {
            startHttp(config, monitoring.http(), access);
        }
    }

    /** The HTTP server; without credentials it listens on the loopback address only, and says so. */
    private void startHttp(SluiceConfig config, HttpServerConfig http, AccessControl access) {
        BasicAuth auth = new BasicAuth(http.username(), http.password(), http.users(), access.authenticator());
        BrokerPublisher publisher = new BrokerPublisher();
        publisher.bind(broker);
        httpApi = new HttpApi(new HttpApi.Parts(broker, version(), metricsRegistry, this::problems,
                capture.exchanges(), bridging.bridges(), streaming.streams(), publisher, config,
                () -> reloads.reloadAllSoon("HTTP API"), reloads::targets, auth, http.maxRecords()));
        httpServer = HttpServer.start(http.bind(), httpApi.routes(), auth, http.authMetrics(), tls(http.tls()),
                http.maxBody());
        String scheme = http.tls() == null ? "http" : "https";
        if (!http.hasCredentials()) {
            LOG.warn("http_server: no credentials configured (http_server.username and password, or http_server.users),"
                    + " so the API and dashboard listen on {} only{}", httpServer.localAddress(),
                    http.loopbackOnly() ? ", not on http_server.ip_addr" : "");
        }
        LOG.info("http_server serving /metrics, /health, the API under /api/v4 and the dashboard at {}://{}/",
                scheme, hostPort(httpServer.localAddress()));
    }

    private static String hostPort(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }

    /**
     * What {@code /health} reports, one line each, empty while all is well: stopping, a broker state
     * that refuses changes (its journal's writer thread failed), and every exchange that cannot
     * capture (its Parquet writer is dead, its write-ahead log offline or unwritable). Forwarding
     * goes on through all of these.
     */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (stopping) {
            problems.add("the server is stopping");
        }
        String stateProblem = state == null ? null : state.problem();
        if (stateProblem != null) {
            problems.add(stateProblem);
        }
        for (Exchange exchange : capture.exchanges().all()) {
            for (String problem : exchange.problems()) {
                problems.add("exchange '" + exchange.name() + "': " + problem);
            }
        }
        return problems;
    }

    /** The version in the jar's Maven metadata; "dev" when running from classes. */
    private static String version() {
        try (InputStream in = SluiceServer.class.getResourceAsStream(
                "/META-INF/maven/io.sluice/server/pom.properties")) {
            if (in == null) {
                return "dev";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "dev");
        } catch (IOException e) {
            return "dev";
        }
    }

    /** The registry {@code /metrics} serves; register further collectors (such as exchange metrics) here. */
    public PrometheusRegistry metricsRegistry() {
        return metricsRegistry;
    }

    /** Where the HTTP server listens; throws if there is no {@code http_server}. */
    public InetSocketAddress httpAddress() {
        if (httpServer == null) {
            throw new IllegalStateException("no http_server is configured");
        }
        return httpServer.localAddress();
    }

    public Broker broker() {
        return broker;
    }

    /** The exchanges this server captures into. */
    public Exchanges exchanges() {
        return capture.exchanges();
    }

    /** The bridges this server runs. */
    public io.sluice.bridges.Bridges bridges() {
        return bridging.bridges();
    }

    /** The bound query endpoint of an exchange, e.g. {@code tcp://127.0.0.1:10000}. */
    public String queryEndpoint(String exchange) {
        return capture.queries().get(exchange).endpoint();
    }

    /** The streams, or null when none is configured and there is no Kafka listener. */
    public Streams streams() {
        return streaming.streams();
    }

    /** The bound address of the listener called {@code name} ({@code kafka} for the Kafka listener). */
    public InetSocketAddress address(String name) {
        if (name.equals("kafka") && streaming.kafka() != null) {
            return streaming.kafka().localAddress();
        }
        for (MqttListener listener : listeners) {
            if (listener.name().equals(name)) {
                return listener.localAddress();
            }
        }
        throw new IllegalArgumentException("no listener named '" + name + "'");
    }

    @Override
    public void close() {
        stopping = true;
        reloads.close();
        if (sysTopics != null) {
            sysTopics.close();
        }
        if (httpServer != null) {
            httpServer.close();
        }
        if (httpApi != null) {
            httpApi.close();
        }
        streaming.closeKafka(); // no more produce requests
        for (MqttListener listener : listeners) {
            listener.close(); // no more publishes: from here on the capture pipeline only drains
        }
        loops.close();
        bridging.close(); // stores what publishers were told is stored, before capture closes under it
        capture.close();
        streaming.close();
        closeQuietly(state);
        broker.close();
        LOG.info("stopped");
    }
}
