package io.sluice.bridges;

import java.util.List;

import io.sluice.bridges.backlog.BacklogRecord;

/**
 * The far side of a bridge, as the bridge's state machine drives it: an MQTT broker
 * ({@link io.sluice.bridges.mqtt.MqttRemote}) or a Kafka cluster ({@link io.sluice.bridges.kafka.KafkaRemote}).
 * It holds at most one connection at a time. Everything a connection reports goes to the
 * {@link Events} it was opened with, from the remote's own threads; the bridge ignores the events
 * of a connection it has given up on.
 */
public interface Remote extends AutoCloseable {

    /** Where it connects, for logs and status, e.g. {@code mqtt-tcp://cloud:1883}. */
    String address();

    /**
     * Starts a connection; its outcome and every later event go to {@code events}. Bridge thread.
     * Returns at once or after a bounded wait (a Kafka producer's metadata timeout).
     */
    void connect(Events events);

    /**
     * Sends messages in order on the current connection. Each is later acknowledged or refused through
     * the connection's events; if the connection fails first, the bridge sends it again on the next
     * one. Bridge thread.
     */
    void send(List<Outgoing> batch);

    /**
     * Sends a QoS 0 message that is not stored ({@code retry_qos_0 = false}), if a connection is up
     * and can take it now; false otherwise. Any thread, never blocks.
     */
    default boolean sendUnstored(BacklogRecord record) {
        return false;
    }

    /**
     * How many messages beyond the window this remote takes from the bridge and holds, sending each
     * as soon as the window has room on its own thread: so a freed slot is filled without a round
     * trip through the bridge thread, and the bridge hands messages over in batches. 0 when the
     * remote pipelines by itself (Kafka's producer).
     */
    default int lookahead() {
        return 0;
    }

    /** Ends the current connection, politely when it is up; no more events come from it. */
    void disconnect(String reason);

    /** Ends the connection and frees what the remote holds. */
    @Override
    void close();

    /** A stored message on its way: its backlog offset and what to send. */
    record Outgoing(long offset, BacklogRecord record) {
    }

    /** What one connection reports. Implementations are thread-safe and return quickly. */
    interface Events {
        /**
         * The connection is up.
         *
         * @param window how many sent messages may be unacknowledged at once (the remote's Receive
         *               Maximum, or what the bridge allows)
         * @param detail what the remote granted, for the log
         */
        void connected(int window, String detail);

        /** The connection failed to open, or was lost; {@code cause} may be null. */
        void failed(String reason, Throwable cause);

        /** The remote has the message stored at {@code offset}. */
        void acknowledged(long offset);

        /** The remote will never take the message at {@code offset}; the bridge counts it and moves on. */
        void refused(long offset, BridgeCounter counter, String reason);
    }
}
