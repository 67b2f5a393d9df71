package io.sluice.broker.session;

/**
 * The network connection a session is attached to, as the session sees it. Implemented by the
 * connection handler; keeps this package free of Netty.
 */
public interface SessionLink {
    /**
     * Asks the connection to call {@link Session#drain} soon on its own event loop. Called with
     * the session lock held, so it must only enqueue work.
     */
    void requestDrain();

    /** Closes the connection because its session was taken over by another connection. */
    void takenOver();

    /** Closes the connection on an operator's request (MQTT 5 clients get DISCONNECT 0x98); any thread. */
    void kick();

    /**
     * Whether the connection is taking what it is given: its write buffer is below the high mark,
     * or went above it only moments ago; any thread. False for a client that stopped reading.
     */
    boolean keepsUp();

    /** Who is connected and how, for status readers; null until the connection is accepted. */
    ClientInfo info();

    /** The client's IP address without its port, which {@code mqtt.max_sessions_per_address} counts by; null if unknown. */
    String sourceHost();
}
