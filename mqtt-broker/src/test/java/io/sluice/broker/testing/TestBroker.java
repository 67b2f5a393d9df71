package io.sluice.broker.testing;

import io.sluice.broker.Broker;
import io.sluice.testing.Eventually;
import io.sluice.testing.LeakWatch;
import io.sluice.broker.MqttSettings;
import io.sluice.net.EventLoops;
import io.sluice.net.ListenerSpec;
import io.sluice.broker.transport.MqttListener;

import java.net.InetSocketAddress;

/** A broker on an ephemeral loopback port, with real Netty event loops; close it after the test. */
public final class TestBroker implements AutoCloseable {
    private final Broker broker;
    private final EventLoops loops;
    private final MqttListener listener;

    public TestBroker(Broker broker) {
        this(broker, ListenerSpec.tcp("tcp", loopback()));
    }

    /** A broker behind the listener {@code spec} describes (bind it to {@link #loopback()}). */
    public TestBroker(Broker broker, ListenerSpec spec) {
        LeakWatch.install();
        this.broker = broker;
        this.loops = new EventLoops(2);
        this.listener = MqttListener.bind(spec, broker, loops);
    }

    /** 127.0.0.1 on a port the OS picks. */
    public static InetSocketAddress loopback() {
        return new InetSocketAddress("127.0.0.1", 0);
    }

    public static TestBroker start() {
        return start(MqttSettings.defaults());
    }

    public static TestBroker start(MqttSettings settings) {
        return new TestBroker(Broker.open(settings));
    }

    public Broker broker() {
        return broker;
    }

    public MqttListener listener() {
        return listener;
    }

    public int port() {
        return listener.localAddress().getPort();
    }

    public String host() {
        return "127.0.0.1";
    }

    /** {@code tcp://127.0.0.1:<port>}, for Paho. */
    public String uri() {
        return "tcp://127.0.0.1:" + port();
    }

    public RawClient raw() {
        return new RawClient(host(), port());
    }

    /**
     * Waits until the broker has read {@code clientId}'s DISCONNECT and holds its session offline:
     * what another connection sends next may otherwise overtake it.
     */
    public void awaitOffline(String clientId) {
        Eventually.await(() -> !broker.sessions().get(clientId).isOnline(), clientId + " offline");
    }

    @Override
    public void close() {
        listener.close();
        loops.close();
        broker.close();
    }
}
