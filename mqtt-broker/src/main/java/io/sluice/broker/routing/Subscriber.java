package io.sluice.broker.routing;

import io.sluice.broker.message.Delivery;

/** What the router delivers to: in practice a client's session. */
public interface Subscriber {
    /** The client identifier, for No Local and for logs. */
    String clientId();

    /** Hands over one delivery without blocking; false if it was dropped (and counted). */
    boolean offer(Delivery delivery);

    /** Whether a network connection is attached right now. */
    boolean isOnline();

    /** Whether messages are kept while offline (a session that outlives its connection). */
    boolean isPersistent();
}
