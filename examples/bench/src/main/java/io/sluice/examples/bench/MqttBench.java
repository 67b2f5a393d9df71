package io.sluice.examples.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * MQTT load generator for any broker. Scenarios:
 * <ul>
 *   <li>{@code throughput}: P publishers publish to {@code bench/<p>}, S subscribers subscribe to
 *       {@code bench/#}; fan-in is P&gt;1, S=1, fan-out is P=1, S&gt;1. Publishers stay at most
 *       {@code --window} messages ahead of the slowest subscriber, so the figure is what the broker
 *       sustains without dropping anything;</li>
 *   <li>{@code connect}: C concurrent loops of TCP connect, CONNECT, CONNACK, DISCONNECT; with
 *       {@code --tls true} each over a new TLS session (full handshake, certificate not checked),
 *       offering the key-exchange groups {@code --groups} (default {@value #GROUPS});</li>
 *   <li>{@code storm}: while a probe client measures publish-to-receive round trips, N new clients
 *       connect, C at a time, and stay until all N are in; reports how long that took and the probe's
 *       round trips before and during the storm;</li>
 *   <li>{@code populate}: leaves persistent sessions and retained messages behind, for start-up timing.</li>
 * </ul>
 * With {@code --query-url} a {@code throughput} run also queries that exchange, {@code async} over
 * all its history, back to back, and reports how much it read: live traffic under query load.
 * <ul>
 * </ul>
 * With {@code --pid} it also reads the broker's CPU time and reports work per broker CPU-second, and
 * each core's load over the same window (how much of the broker's core, {@code --broker-core}, 0 by
 * default, went to something else).
 *
 * <pre>
 * java -cp 'examples/bench/target/bench-0.1.0-SNAPSHOT.jar:examples/bench/target/lib/*' \
 *     io.sluice.examples.bench.MqttBench throughput --port 1883 --publishers 4 --subscribers 1 \
 *     --qos 0 --payload 64 --seconds 10 --pid 12345
 * </pre>
 */
public final class MqttBench {
    /**
     * The key-exchange groups a TLS client offers by default: those of OpenSSL 3.0's default list
     * that BoringSSL also knows. Without it BoringSSL offers the post-quantum hybrid X25519MLKEM768
     * first, which a BoringSSL server takes and OpenSSL 3.0 (Mosquitto) cannot, so the two brokers'
     * handshakes would not do the same work.
     */
    static final String GROUPS = "X25519:P-256:P-384";
    private final Map<String, String> options;
    private SslContext clientTls;

    private MqttBench(Map<String, String> options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: MqttBench throughput|connect [--host H] [--port P] [--publishers N] "
                    + "[--subscribers N] [--qos 0|1] [--payload BYTES] [--window N] [--seconds S] [--warmup S] "
                    + "[--rate MSGS_PER_S] [--concurrency N] [--tls true] [--groups G1:G2] [--persistent true] [--query-url URL] "
                    + "[--pid BROKER_PID] [--broker-core N] [--label TEXT]\n"
                    + "       MqttBench storm [--connections N] [--concurrency N]\n"
                    + "       MqttBench populate [--sessions N] [--retained N] [--payload BYTES]");
            System.exit(64);
        }
        MqttBench bench = new MqttBench(options(args, 1));
        switch (args[0]) {
            case "throughput" -> bench.throughput();
            case "connect" -> bench.connectRate();
            case "storm" -> bench.storm();
            case "populate" -> bench.populate();
            default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
        }
        System.exit(0);
    }

    /** {@code --name value} pairs from {@code args[from]} on, names without the dashes. */
    static Map<String, String> options(String[] args, int from) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = from; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        return options;
    }

    private String get(String key, String fallback) {
        return options.getOrDefault(key, fallback);
    }

    private int integer(String key, int fallback) {
        return Integer.parseInt(get(key, Integer.toString(fallback)));
    }

    private void throughput() throws Exception {
        String host = get("host", "127.0.0.1");
        int port = integer("port", 1883);
        int publishers = integer("publishers", 4);
        int subscribers = integer("subscribers", 1);
        int qos = integer("qos", 0);
        int payload = integer("payload", 64);
        long window = integer("window", 1_000);
        EventLoopGroup group = group(integer("threads", 1));
        Class<? extends SocketChannel> type = Epoll.isAvailable() ? EpollSocketChannel.class : NioSocketChannel.class;
        boolean persistent = Boolean.parseBoolean(get("persistent", "false"));
        List<BenchClient> subs = new ArrayList<>();
        for (int i = 0; i < subscribers; i++) {
            BenchClient sub = BenchClient.connect(group, type, host, port, "bench-sub-" + i, !persistent);
            sub.subscribe("bench/#", qos);
            subs.add(sub);
        }
        List<BenchClient> pubs = new ArrayList<>();
        for (int i = 0; i < publishers; i++) {
            BenchClient pub = BenchClient.connect(group, type, host, port, "bench-pub-" + i);
            pub.publishes("bench/" + i, qos, new byte[payload]);
            pubs.add(pub);
        }
        Pump pump = new Pump(pubs, subs, window, qos, Long.parseLong(get("rate", "0")));
        Thread pumpThread = new Thread(pump, "bench-pump");
        pumpThread.start();
        QueryLoop queries = options.containsKey("query-url") ? QueryLoop.start(get("query-url", null)) : null;
        Measurement m = measure(() -> subs.stream().mapToLong(s -> s.received.get()).sum());
        pump.running = false;
        pumpThread.join();
        String queryLoad = queries == null ? "" : " " + queries.stop(m.seconds());
        report("throughput", m, "deliveries", String.format(Locale.ROOT,
                "publishers=%d subscribers=%d qos=%d payload=%d persistent=%s%s%s", publishers, subscribers, qos, payload,
                persistent, options.containsKey("rate") ? " rate=" + get("rate", "") : "", queryLoad));
        pubs.forEach(BenchClient::close);
        subs.forEach(BenchClient::close);
        group.shutdownGracefully().syncUninterruptibly();
    }

    /**
     * Keeps publishers at most {@code window} messages ahead of the slowest subscriber and, with a
     * {@code rate}, at most that many messages a second in total (0: as fast as the broker goes).
     */
    private static final class Pump implements Runnable {
        private static final int CHUNK = 64;
        private static final int QOS1_INFLIGHT = 512;
        private final List<BenchClient> pubs;
        private final List<BenchClient> subs;
        private final long window;
        private final int qos;
        private final long rate;
        volatile boolean running = true;

        Pump(List<BenchClient> pubs, List<BenchClient> subs, long window, int qos, long rate) {
            this.pubs = pubs;
            this.subs = subs;
            this.window = window;
            this.qos = qos;
            this.rate = rate;
        }

        @Override
        public void run() {
            long totalSent = 0;
            long start = System.nanoTime();
            while (running) {
                long allowed = rate == 0 ? Long.MAX_VALUE : (long) ((System.nanoTime() - start) * (rate / 1e9));
                long slowest = Long.MAX_VALUE;
                for (BenchClient sub : subs) {
                    slowest = Math.min(slowest, sub.received.get());
                }
                boolean sentAny = false;
                for (BenchClient pub : pubs) {
                    long ahead = totalSent - slowest;
                    boolean windowOpen = ahead + CHUNK <= window && totalSent + CHUNK <= allowed;
                    boolean acksOpen = qos == 0 || pub.sent.get() - pub.acknowledged.get() + CHUNK <= QOS1_INFLIGHT;
                    if (windowOpen && acksOpen && pub.isWritable()) {
                        pub.send(CHUNK);
                        totalSent += CHUNK;
                        sentAny = true;
                    }
                }
                if (!sentAny) {
                    LockSupport.parkNanos(20_000);
                }
            }
        }
    }

    /**
     * Fills a broker with state for the start-up benchmark: {@code --sessions} persistent sessions
     * (clean session 0, one subscription each, then disconnected) and {@code --retained} retained
     * messages of {@code --payload} bytes.
     */
    private void populate() throws Exception {
        String host = get("host", "127.0.0.1");
        int port = integer("port", 1883);
        int sessions = integer("sessions", 10_000);
        int retained = integer("retained", 100_000);
        EventLoopGroup group = group(1);
        Class<? extends SocketChannel> type = Epoll.isAvailable() ? EpollSocketChannel.class : NioSocketChannel.class;
        long start = System.nanoTime();
        for (int i = 0; i < sessions; i++) {
            BenchClient client = BenchClient.connect(group, type, host, port, "state-" + i, false);
            client.subscribe("devices/" + i + "/cmd", 1);
            client.close();
        }
        BenchClient publisher = BenchClient.connect(group, type, host, port, "state-publisher");
        publisher.retain("retained", retained, new byte[integer("payload", 64)]);
        publisher.close();
        System.out.printf(Locale.ROOT, "populated %d persistent sessions and %d retained messages in %.1f s%n",
                sessions, retained, (System.nanoTime() - start) / 1e9);
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private void connectRate() throws Exception {
        String host = get("host", "127.0.0.1");
        int port = integer("port", 1883);
        int concurrency = integer("concurrency", 16);
        EventLoopGroup group = group(integer("threads", 1));
        Class<? extends SocketChannel> type = Epoll.isAvailable() ? EpollSocketChannel.class : NioSocketChannel.class;
        AtomicLong completed = new AtomicLong();
        AtomicLong ids = new AtomicLong();
        Bootstrap bootstrap = new Bootstrap().group(group).channel(type).option(ChannelOption.TCP_NODELAY, true);
        ConnectLoop loop = new ConnectLoop(bootstrap, host, port, completed, ids, tls());
        for (int i = 0; i < concurrency; i++) {
            loop.next();
        }
        Measurement m = measure(completed::get);
        loop.running = false;
        report("connect", m, "connections", "concurrency=" + concurrency
                + (tls() != null ? " tls (" + loop.negotiated + ", groups offered " + get("groups", GROUPS) + ", client "
                + SslContext.defaultClientProvider() + ")" : ""));
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** One CONNECT/CONNACK/DISCONNECT round after another, {@code concurrency} at a time. */
    private static final class ConnectLoop {
        private final Bootstrap bootstrap;
        private final String host;
        private final int port;
        private final AtomicLong completed;
        private final AtomicLong ids;
        volatile boolean running = true;
        /** With TLS, the protocol and cipher suite of the first handshake, for the report. */
        volatile String negotiated;

        ConnectLoop(Bootstrap bootstrap, String host, int port, AtomicLong completed, AtomicLong ids, SslContext tls) {
            this.bootstrap = bootstrap.handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    if (tls != null) {
                        ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                    }
                    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelActive(ChannelHandlerContext ctx) {
                            if (tls == null) {
                                sendConnect(ctx);
                            }
                        }

                        @Override
                        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
                            if (event instanceof SslHandshakeCompletionEvent done) {
                                if (done.isSuccess()) {
                                    if (negotiated == null) {
                                        javax.net.ssl.SSLSession session = ctx.pipeline().get(SslHandler.class).engine().getSession();
                                        negotiated = session.getProtocol() + " " + session.getCipherSuite();
                                    }
                                    sendConnect(ctx);
                                } else {
                                    ctx.close();
                                }
                            }
                        }

                        private void sendConnect(ChannelHandlerContext ctx) {
                            ctx.writeAndFlush(Packets.connect("bench-conn-" + ConnectLoop.this.ids.incrementAndGet(), 60));
                        }

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ((io.netty.buffer.ByteBuf) msg).release();
                            ConnectLoop.this.completed.incrementAndGet();
                            ctx.writeAndFlush(Packets.disconnect()).addListener(f -> ctx.close());
                        }

                        @Override
                        public void channelInactive(ChannelHandlerContext ctx) {
                            next();
                        }
                    });
                }
            });
            this.host = host;
            this.port = port;
            this.completed = completed;
            this.ids = ids;
        }

        void next() {
            if (running) {
                bootstrap.connect(host, port).addListener(f -> {
                    if (!f.isSuccess()) {
                        throw new IllegalStateException("cannot connect to " + host + ":" + port, f.cause());
                    }
                });
            }
        }
    }

    /** With {@code --tls true}, a client TLS context that trusts any certificate (a benchmark, not a client to copy). */
    private SslContext tls() {
        if (!Boolean.parseBoolean(get("tls", "false"))) {
            return null;
        }
        if (clientTls == null) {
            try {
                clientTls = SslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                        .option(OpenSslContextOption.GROUPS, get("groups", GROUPS).split(":")).build();
            } catch (javax.net.ssl.SSLException e) {
                throw new IllegalStateException("cannot make a client TLS context", e);
            }
        }
        return clientTls;
    }

    /**
     * {@code --connections} new clients connect, {@code --concurrency} at a time, and stay; meanwhile
     * a probe publishes to itself one message at a time and records each round trip.
     */
    private void storm() throws Exception {
        String host = get("host", "127.0.0.1");
        int port = integer("port", 1883);
        int connections = integer("connections", 10_000);
        int concurrency = integer("concurrency", 500);
        EventLoopGroup group = group(integer("threads", 1));
        EventLoopGroup probeGroup = group(1);
        Class<? extends SocketChannel> type = Epoll.isAvailable() ? EpollSocketChannel.class : NioSocketChannel.class;
        BenchClient probe = BenchClient.connect(probeGroup, type, host, port, "storm-probe");
        probe.subscribe("storm/probe", 0);
        probe.publishes("storm/probe", 0, new byte[16]);
        RoundTrips before = RoundTrips.measure(probe, 2_000, () -> false);
        Storm storm = new Storm(new Bootstrap().group(group).channel(type).option(ChannelOption.TCP_NODELAY, true),
                host, port, connections, concurrency);
        long start = System.nanoTime();
        storm.start();
        RoundTrips during = RoundTrips.measure(probe, Integer.MAX_VALUE, storm::done);
        storm.await();
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "%s storm connections=%d concurrency=%d: all connected in %.2f s (%.0f/s); "
                        + "probe round trips before: %s; during: %s%n", get("label", "broker"), connections, concurrency,
                seconds, connections / seconds, before, during);
        storm.close();
        probe.close();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        probeGroup.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static EventLoopGroup group(int threads) {
        IoHandlerFactory factory = Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, factory);
    }

    /** Publish-to-receive round trips of one probe client, one message at a time. */
    private record RoundTrips(int count, double p50Millis, double p99Millis, double maxMillis) {
        static RoundTrips measure(BenchClient probe, int max, java.util.function.BooleanSupplier stop)
                throws InterruptedException {
            List<Long> nanos = new ArrayList<>();
            while (nanos.size() < max && !stop.getAsBoolean()) {
                long target = probe.received.get() + 1;
                long t0 = System.nanoTime();
                probe.send(1);
                long deadline = t0 + 30_000_000_000L;
                while (probe.received.get() < target) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the probe got no answer within 30 s");
                    }
                    Thread.onSpinWait();
                }
                nanos.add(System.nanoTime() - t0);
            }
            java.util.Collections.sort(nanos);
            if (nanos.isEmpty()) {
                return new RoundTrips(0, 0, 0, 0);
            }
            return new RoundTrips(nanos.size(), nanos.get(nanos.size() / 2) / 1e6,
                    nanos.get(Math.min(nanos.size() - 1, (int) (nanos.size() * 0.99))) / 1e6,
                    nanos.get(nanos.size() - 1) / 1e6);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d, p50 %.2f ms, p99 %.2f ms, max %.2f ms", count, p50Millis,
                    p99Millis, maxMillis);
        }
    }

    /** Opens {@code total} connections, {@code concurrency} CONNECTs in flight at a time, and keeps them open. */
    private static final class Storm {
        private final Bootstrap bootstrap;
        private final String host;
        private final int port;
        private final int total;
        private final int concurrency;
        private final AtomicLong started = new AtomicLong();
        private final AtomicLong ids = new AtomicLong();
        private final java.util.concurrent.CountDownLatch connected;
        private final java.util.Queue<io.netty.channel.Channel> channels = new java.util.concurrent.ConcurrentLinkedQueue<>();

        Storm(Bootstrap bootstrap, String host, int port, int total, int concurrency) {
            this.host = host;
            this.port = port;
            this.total = total;
            this.concurrency = concurrency;
            this.connected = new java.util.concurrent.CountDownLatch(total);
            this.bootstrap = bootstrap.handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelActive(ChannelHandlerContext ctx) {
                            channels.add(ctx.channel());
                            ctx.writeAndFlush(Packets.connect("storm-" + ids.incrementAndGet(), 600));
                        }

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ((io.netty.buffer.ByteBuf) msg).release();
                            connected.countDown();
                            next();
                        }
                    });
                }
            });
        }

        void start() {
            for (int i = 0; i < concurrency; i++) {
                next();
            }
        }

        private void next() {
            if (started.incrementAndGet() <= total) {
                bootstrap.connect(host, port).addListener(f -> {
                    if (!f.isSuccess()) {
                        throw new IllegalStateException("cannot connect to " + host + ":" + port, f.cause());
                    }
                });
            }
        }

        boolean done() {
            return connected.getCount() == 0;
        }

        void await() throws InterruptedException {
            if (!connected.await(120, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException((total - connected.getCount()) + " of " + total
                        + " connections got CONNACK within 120 s");
            }
        }

        void close() {
            for (io.netty.channel.Channel channel : channels) {
                channel.writeAndFlush(Packets.disconnect()).addListener(f -> channel.close());
            }
        }
    }

    /** {@code cores}: each core's load over the same window, to show what else ran next to the broker. */
    private record Measurement(double seconds, long count, double brokerCpuSeconds, String cores) {
    }

    private Measurement measure(java.util.function.LongSupplier counter) throws InterruptedException {
        BrokerCpu cpu = new BrokerCpu(Long.parseLong(get("pid", "0")));
        Thread.sleep((long) (Double.parseDouble(get("warmup", "3")) * 1000));
        long count0 = counter.getAsLong();
        double cpu0 = cpu.seconds();
        CoreTimes cores0 = CoreTimes.now();
        long t0 = System.nanoTime();
        Thread.sleep((long) (Double.parseDouble(get("seconds", "10")) * 1000));
        long count1 = counter.getAsLong();
        double cpu1 = cpu.seconds();
        CoreTimes cores1 = CoreTimes.now();
        long t1 = System.nanoTime();
        double seconds = (t1 - t0) / 1e9;
        return new Measurement(seconds, count1 - count0, cpu1 - cpu0,
                cores1.since(cores0, seconds, integer("broker-core", 0), cpu1 - cpu0));
    }

    private void report(String scenario, Measurement m, String unit, String parameters) {
        double perSecond = m.count() / m.seconds();
        double perCpuSecond = m.count() / m.brokerCpuSeconds();
        System.out.printf(Locale.ROOT, "%s %s %s: %d %s in %.1f s = %.0f/s; broker CPU %.2f s = %.0f %s per CPU-second; %s%n",
                get("label", "broker"), scenario, parameters, m.count(), unit, m.seconds(), perSecond,
                m.brokerCpuSeconds(), perCpuSecond, unit, m.cores());
    }
}
