package io.sluice.broker.persistence;

import io.sluice.broker.Broker;
import io.sluice.broker.MqttSettings;
import io.sluice.broker.security.Authorizer;
import io.sluice.broker.testing.TestBroker;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.net.auth.Authenticator;
import io.sluice.storage.FlushPolicy;

import java.nio.file.Path;
import java.util.List;

/** An in-process broker whose state lives in {@code dir}; close it and open another on the same dir to restart. */
final class PersistentBroker implements AutoCloseable {
    final BrokerState state;
    final TestBroker broker;

    PersistentBroker(Path dir, MqttSettings settings) {
        state = BrokerState.open(new PersistenceSettings(true, dir, FlushPolicy.INTERVAL, 1000));
        Broker engine;
        try {
            engine = new Broker(settings, List.of(), Authenticator.ALLOW_ALL, Authorizer.ALLOW_ALL,
                    state.sessionJournal(), state.retainedJournal());
        } catch (InvalidTopicException e) {
            throw new IllegalStateException(e);
        }
        state.restoreInto(engine);
        broker = new TestBroker(engine);
    }

    PersistentBroker(Path dir) {
        this(dir, MqttSettings.defaults());
    }

    Broker engine() {
        return broker.broker();
    }

    @Override
    public void close() {
        broker.close();
        state.close();
    }
}
