package io.sluice.query.client;

import io.sluice.query.client.internal.ConsumerBuilder;
import java.time.Duration;

/**
 * A client of one exchange's query channel (the ZeroMQ PAIR socket on its {@code exchange_url}):
 * it sends a command and hands back the reply as it arrives.
 *
 * <pre>{@code
 * try (ExchangeConsumer consumer = ExchangeConsumer.builder().url("tcp://127.0.0.1:10000").connect();
 *      Query query = consumer.query("async-1700000000000-1700000005000")) {
 *     for (Record record : query.records()) {
 *         System.out.println(record.ts() + " " + record.data().length);
 *     }
 * }
 * }</pre>
 *
 * <p>PAIR can lose the first request of a client that connects while the server still holds its
 * previous peer, without an error on either side. So when no frame of a reply arrives within the
 * timeout, the consumer closes its socket, connects again and resends the command, once; a
 * second silence is a {@link QueryTimeoutException}. A timeout after part of a reply arrived is not
 * retried (the caller has seen data).
 *
 * <p>One query at a time, one thread at a time. Not to be implemented outside this library.
 */
public interface ExchangeConsumer extends AutoCloseable {

    /** The default URL, the server's default {@code exchange_url}. */
    String DEFAULT_URL = "tcp://127.0.0.1:10000";
    /** The default receive timeout. */
    Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /** A builder for a consumer; {@link Builder#connect()} makes it. */
    static Builder builder() {
        return new ConsumerBuilder();
    }

    /** The URL it connects to. */
    String url();

    /**
     * Sends a command, {@code sync-<start>-<end>} or {@code async-<start>-<end>}, optionally
     * followed by {@code -<columns>}. A query not read to its end is abandoned first (the consumer
     * reconnects, so its remaining frames cannot mix with the new reply).
     *
     * @return the reply, read frame by frame or record by record; close it when done
     */
    Query query(String command);

    /** Closes the socket; a query in progress ends. */
    @Override
    void close();

    /** How to connect. Not to be implemented outside this library. */
    interface Builder {

        /** The server's URL, {@code tcp://host:port}; default {@value ExchangeConsumer#DEFAULT_URL}. */
        Builder url(String url);

        /** How long to wait for each frame of a reply; default 10 s. */
        Builder timeout(Duration timeout);

        /** Makes the consumer and starts connecting (ZeroMQ connects in the background and retries). */
        ExchangeConsumer connect();
    }
}
