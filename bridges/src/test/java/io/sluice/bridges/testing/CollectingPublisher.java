package io.sluice.bridges.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.LocalPublisher;
import io.sluice.net.auth.ClientIdentity;

/**
 * The local side of a bridge in the bridges module's own tests, where no broker runs: it accepts
 * every message (or denies topics starting with {@code denied/}), keeps it and acknowledges at once.
 * End-to-end tests against the real broker live in the server module.
 */
public final class CollectingPublisher implements LocalPublisher {
    private final List<BridgeMessage> messages = new CopyOnWriteArrayList<>();
    private volatile ClientIdentity lastPublisher;

    @Override
    public Outcome publish(ClientIdentity publisher, BridgeMessage message, Runnable done) {
        lastPublisher = publisher;
        if (message.topic().startsWith("denied/")) {
            done.run();
            return Outcome.DENIED;
        }
        messages.add(message);
        done.run();
        return Outcome.ACCEPTED;
    }

    public List<BridgeMessage> messages() {
        return List.copyOf(messages);
    }

    /** The topics received, in order. */
    public List<String> topics() {
        return messages.stream().map(BridgeMessage::topic).toList();
    }

    public ClientIdentity lastPublisher() {
        return lastPublisher;
    }
}
