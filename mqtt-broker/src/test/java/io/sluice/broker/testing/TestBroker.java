package io.sluice.broker.testing;

import io.sluice.broker.Broker;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.transport.EventLoops;
import io.sluice.broker.transport.MqttListener;

import java.net.InetSocketAddress;

/** A broker on an ephemeral loopback port, with real Netty event loops; close it after the test. */
public final class TestBroker implements AutoCloseable {
    private final Broker broker;
    private final EventLoops loops;
    private final MqttListener listener;

    public TestBroker(Broker broker) {
        LeakWatch.install();
        this.broker = broker;
        this.loops = new EventLoops(2);
        this.listener = MqttListener.bind("tcp", new InetSocketAddress("127.0.0.1", 0), broker, loops);
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

    @Override
    public void close() {
        listener.close();
        loops.close();
        broker.close();
    }
}
