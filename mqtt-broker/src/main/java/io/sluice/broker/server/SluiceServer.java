package io.sluice.broker.server;

import io.sluice.broker.Broker;
import io.sluice.broker.server.config.ListenerConfig;
import io.sluice.broker.server.config.SluiceConfig;
import io.sluice.broker.transport.EventLoops;
import io.sluice.broker.transport.MqttListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The running server: the broker engine, its listeners and whatever is wired to them. Built
 * from a validated {@link SluiceConfig}; {@link #close()} stops it gracefully, in the reverse
 * order of start-up.
 */
public final class SluiceServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceServer.class);

    private final Broker broker;
    private final EventLoops loops;
    private final List<MqttListener> listeners = new ArrayList<>();

    private SluiceServer(Broker broker, EventLoops loops) {
        this.broker = broker;
        this.loops = loops;
    }

    /** Starts everything the configuration describes; on failure, stops what already started. */
    public static SluiceServer start(SluiceConfig config) {
        Broker broker = Broker.open(config.mqtt());
        SluiceServer server = new SluiceServer(broker, new EventLoops(config.ioThreads()));
        try {
            for (ListenerConfig listener : config.listeners()) {
                server.listeners.add(MqttListener.bind(listener.name(), listener.bind(), broker, server.loops));
            }
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        for (MqttListener listener : server.listeners) {
            LOG.info("listener '{}' accepting MQTT on {} ({})", listener.name(), listener.localAddress(),
                    server.loops.isEpoll() ? "epoll" : "nio");
        }
        return server;
    }

    public Broker broker() {
        return broker;
    }

    /** The bound address of the listener called {@code name}. */
    public InetSocketAddress address(String name) {
        for (MqttListener listener : listeners) {
            if (listener.name().equals(name)) {
                return listener.localAddress();
            }
        }
        throw new IllegalArgumentException("no listener named '" + name + "'");
    }

    @Override
    public void close() {
        for (MqttListener listener : listeners) {
            listener.close();
        }
        loops.close();
        broker.close();
        LOG.info("stopped");
    }
}
