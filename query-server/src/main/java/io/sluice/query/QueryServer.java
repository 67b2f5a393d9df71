package io.sluice.query;

import io.sluice.query.wire.CommandText;
import io.sluice.query.wire.ErrFrame;
import io.sluice.exchange.Exchange;
import io.sluice.exchange.ExchangeQuery;
import io.sluice.logging.RateLimitedLog;
import io.sluice.query.internal.FrameWriter;
import io.sluice.query.internal.PairEndpoint;
import io.sluice.query.internal.PairEndpoint.Outcome;
import io.sluice.query.internal.RateLimit;
import io.sluice.query.internal.ReplyStopped;
import io.sluice.query.internal.SyncSpool;
import io.sluice.query.internal.ThreadNice;
import io.sluice.stream.CommandException;
import io.sluice.query.wire.EofFrame;
import io.sluice.stream.QueryCommand;
import java.io.IOException;
import java.net.BindException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One exchange's query channel: a ZeroMQ PAIR socket bound on its {@code exchange_url}, served by
 * the thread {@code sluice-query-<exchange>}, one request at a time. The wire protocol is
 * {@code docs/query-protocol.md}:
 * <ul>
 *   <li>A request is one frame holding a command, {@code sync|async-<start>-<end>[-<columns>]}.</li>
 *   <li>{@code async} streams data frames of at most {@code max_frame_bytes} as the exchange's merged
 *       read (files, queued batches, ring) produces them: a frame goes out when the next record
 *       does not fit, or when it has waited {@value #LINGER_MILLIS} ms, so the first frame leaves
 *       long before a large scan ends. Then the EOF frame {@code 0x0B 0xAD}.</li>
 *   <li>{@code sync} sends the whole result as one data frame (empty when nothing matched), then
 *       EOF. It is assembled off the heap beyond one frame ({@link SyncSpool}); a result over
 *       {@code max_sync_bytes} is refused with {@code ERR TOO_LARGE}.</li>
 *   <li>Every refusal and failure is one frame {@code ERR <code> <reason>} then EOF
 *       ({@link ErrFrame}): a bad command, a request over {@code limit_frequency}, a failed read
 *       (possibly after some {@code async} data frames). The server carries on with the next
 *       request.</li>
 * </ul>
 * Memory per server stays bounded whatever a reply's size: one frame buffer, at most
 * {@value PairEndpoint#SEND_HWM} frames queued towards the client, and the exchange's bounded read
 * chunks. A client that leaves or stops reading for {@code send_timeout} only ends its own reply
 * ({@link QueryCounter#ABANDONED}). Queries run only on this thread, apart from the broker's event
 * loops and the exchange's ring and writer threads.
 */
public final class QueryServer implements AutoCloseable {

    /** Longest a partly filled {@code async} frame waits for more records before it is sent. */
    public static final long LINGER_MILLIS = 100;

    private static final Logger LOG = LoggerFactory.getLogger(QueryServer.class);
    private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
    /** A failure that repeats (a damaged file failing every query, a client flooding bad requests) is logged once per this. */
    private static final Duration ERROR_INTERVAL = Duration.ofSeconds(10);

    private final Exchange exchange;
    private final QueryServerSettings settings;
    private final AtomicLongArray counts = new AtomicLongArray(QueryCounter.values().length);
    private final PairEndpoint endpoint;
    private final RateLimit rateLimit;
    private final RateLimitedLog readErrors;
    private final RateLimitedLog refusals;
    private final ByteBuffer frameBuffer;
    private final Thread thread;
    private volatile boolean stopping;
    private long lastFrameNanos;

    private QueryServer(Exchange exchange, QueryServerSettings settings) throws BindException {
        this.exchange = exchange;
        this.settings = settings;
        this.endpoint = PairEndpoint.bind(exchange.name(), settings.url(), settings.sendTimeout().toNanos(), settings.nice(),
                () -> stopping, counts);
        this.rateLimit = new RateLimit(settings.limitFrequency(), System::nanoTime);
        this.readErrors = RateLimitedLog.onePer(LOG, "query server of exchange " + exchange.name(), ERROR_INTERVAL);
        this.refusals = RateLimitedLog.onePer(LOG, "query server of exchange " + exchange.name(), ERROR_INTERVAL);
        this.frameBuffer = ByteBuffer.allocate(settings.maxFrameBytes());
        this.thread = new Thread(this::run, "sluice-query-" + exchange.name());
    }

    /**
     * Binds the exchange's query channel and starts serving it.
     *
     * @throws BindException naming the exchange and the URL when the URL cannot be bound
     */
    public static QueryServer open(Exchange exchange, QueryServerSettings settings) throws BindException {
        SyncSpool.deleteLeftovers(exchange.name(), settings.spoolDir());
        QueryServer server = new QueryServer(exchange, settings);
        server.thread.start();
        LOG.info("exchange {}: query channel listening on {} (limit_frequency {}, max_frame_bytes {}, max_sync_bytes {}, "
                        + "query_nice {})", exchange.name(), server.endpoint(),
                settings.limitFrequency() == 0 ? "unlimited" : settings.limitFrequency(), settings.maxFrameBytes(),
                settings.maxSyncBytes(), settings.nice());
        return server;
    }

    /** The exchange served. */
    public Exchange exchange() {
        return exchange;
    }

    /** The settings it was opened with. */
    public QueryServerSettings settings() {
        return settings;
    }

    /** The bound address, {@code tcp://host:port}, with the actual port when the URL asked for {@code *}. */
    public String endpoint() {
        return endpoint.endpoint();
    }

    /** A counter's value; any thread. */
    public long counter(QueryCounter counter) {
        return counts.get(counter.ordinal());
    }

    /** Every counter by metric name, for metrics; any thread. */
    public Map<String, Long> counters() {
        Map<String, Long> all = new LinkedHashMap<>();
        for (QueryCounter counter : QueryCounter.values()) {
            all.put(counter.metricName(), counts.get(counter.ordinal()));
        }
        return all;
    }

    private void count(QueryCounter counter) {
        counts.incrementAndGet(counter.ordinal());
    }

    private void count(QueryCounter counter, long delta) {
        counts.addAndGet(counter.ordinal(), delta);
    }

    private void run() {
        ThreadNice.applyToCurrentThread(settings.nice(), exchange.name());
        try {
            while (!stopping) {
                PairEndpoint.Request request = endpoint.receive();
                if (request != null) {
                    serve(request);
                }
            }
        } catch (RuntimeException | Error e) {
            LOG.error("query server of exchange {}: stopped by an unexpected failure; queries on {} go unanswered", exchange.name(),
                    endpoint(), e);
        } finally {
            endpoint.close();
        }
    }

    private void serve(PairEndpoint.Request request) {
        count(QueryCounter.REQUESTS);
        if (!rateLimit.tryAcquire()) {
            count(QueryCounter.RATE_LIMITED);
            refusals.warn("refused queries over limit_frequency " + rateLimit.limit());
            refuse(ErrFrame.RATE_LIMITED, "more than " + rateLimit.limit() + " queries in 5 s (limit_frequency); retry in "
                    + rateLimit.millisUntilReset() + " ms");
            return;
        }
        String text = CommandText.decode(request.bytes());
        if (request.multipart()) {
            count(QueryCounter.BAD_COMMANDS);
            refuse(CommandException.BAD_COMMAND, "a request is one frame holding the command; got a multi-frame message");
            return;
        }
        QueryCommand command;
        try {
            command = exchange.parseCommand(text);
        } catch (CommandException e) {
            count(QueryCounter.BAD_COMMANDS);
            LOG.debug("query server of exchange {}: refused '{}': {}", exchange.name(), text, e.getMessage());
            refuse(e.code(), e.reason());
            return;
        }
        ExchangeQuery query;
        try {
            query = exchange.query(command);
        } catch (IllegalStateException e) {
            refuse(ErrFrame.UNAVAILABLE, "exchange " + exchange.name() + " is closed");
            return;
        }
        answer(text, command, query);
    }

    private void answer(String text, QueryCommand command, ExchangeQuery query) {
        long started = System.nanoTime();
        long bytesBefore = counter(QueryCounter.BYTES);
        try {
            long records = command.sync() ? replySync(query) : replyAsync(query);
            count(QueryCounter.RECORDS, records);
            if (!sent(endpoint.sendEof())) {
                return;
            }
            count(QueryCounter.REPLIES);
            LOG.debug("query server of exchange {}: answered '{}' with {} records, {} bytes in {} ms", exchange.name(), text, records,
                    counter(QueryCounter.BYTES) - bytesBefore, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        } catch (ReplyStopped e) {
            stopped(text, e);
        } catch (IOException | RuntimeException e) {
            count(QueryCounter.READ_FAILURES);
            readErrors.error("reading for '" + text + "' failed", e);
            refuse(ErrFrame.READ_FAILED, "reading exchange " + exchange.name() + " failed: " + e);
        } finally {
            close(text, query);
        }
    }

    /** Closes a query once its reply is over; a failure here cannot change what the client was told, so it is only logged. */
    private void close(String text, ExchangeQuery query) {
        try {
            query.close();
        } catch (IOException | RuntimeException e) {
            readErrors.error("closing the query '" + text + "' failed", e);
        }
    }

    private long replyAsync(ExchangeQuery query) throws IOException {
        FrameWriter writer = new FrameWriter(frameBuffer, this::sendDataFrame);
        lastFrameNanos = System.nanoTime();
        while (query.decodeNext(writer)) {
            checkStopping();
            if (writer.hasPending() && System.nanoTime() - lastFrameNanos >= LINGER_NANOS) {
                writer.flush();
            }
        }
        writer.flush();
        return writer.records();
    }

    private long replySync(ExchangeQuery query) throws IOException {
        try (SyncSpool spool = new SyncSpool(exchange.name(), settings.spoolDir(), settings.maxSyncBytes())) {
            FrameWriter writer = new FrameWriter(frameBuffer, spool);
            while (query.decodeNext(writer)) {
                checkStopping();
            }
            writer.flush();
            sendDataFrame(spool.reply(), true);
            return writer.records();
        }
    }

    private void checkStopping() {
        if (stopping) {
            throw ReplyStopped.of(Outcome.STOPPED);
        }
    }

    /** Sends one data frame, unless a client could mistake it for an ERR or EOF frame. */
    private void sendDataFrame(ByteBuffer frame, boolean owned) {
        int length = frame.remaining();
        if (looksLikeControl(frame)) {
            throw new ReplyStopped(ReplyStopped.Reason.AMBIGUOUS, "a data frame of " + length + " bytes starts like an ERR or EOF frame");
        }
        Outcome outcome = owned ? endpoint.sendOwned(frame) : endpoint.send(frame);
        if (outcome != Outcome.SENT) {
            throw ReplyStopped.of(outcome);
        }
        count(QueryCounter.FRAMES);
        count(QueryCounter.BYTES, length);
        lastFrameNanos = System.nanoTime();
    }

    private static boolean looksLikeControl(ByteBuffer frame) {
        int at = frame.position();
        int length = frame.remaining();
        if (length == EofFrame.LENGTH) {
            return frame.get(at) == EofFrame.FIRST && frame.get(at + 1) == EofFrame.SECOND;
        }
        if (length < ErrFrame.PREFIX.length) {
            return false;
        }
        for (int i = 0; i < ErrFrame.PREFIX.length; i++) {
            if (frame.get(at + i) != ErrFrame.PREFIX[i]) {
                return false;
            }
        }
        return true;
    }

    private void stopped(String text, ReplyStopped e) {
        switch (e.reason()) {
            case PEER_LEFT, TIMED_OUT -> {
                count(QueryCounter.ABANDONED);
                LOG.info("query server of exchange {}: abandoned the reply to '{}': {}", exchange.name(), text, e.getMessage());
            }
            case STOPPED -> {
                endpoint.sendNow(ErrFrame.encode(ErrFrame.UNAVAILABLE, "the server is shutting down; the reply is incomplete"));
                endpoint.sendNow(EofFrame.bytes());
            }
            case TOO_LARGE -> {
                count(QueryCounter.TOO_LARGE);
                refuse(ErrFrame.TOO_LARGE, e.getMessage() + "; ask with async instead");
            }
            case AMBIGUOUS -> {
                count(QueryCounter.READ_FAILURES);
                refusals.warn("refused '" + text + "': " + e.getMessage());
                refuse(ErrFrame.AMBIGUOUS_DATA, e.getMessage() + "; ask for a column list that starts with ts");
            }
            default -> throw new IllegalStateException(e.reason().name());
        }
    }

    /** Sends {@code ERR <code> <reason>} and EOF. */
    private void refuse(String code, String reason) {
        if (sent(endpoint.send(ErrFrame.encode(code, reason)))) {
            sent(endpoint.sendEof());
        }
    }

    private boolean sent(Outcome outcome) {
        if (outcome == Outcome.SENT) {
            return true;
        }
        if (outcome != Outcome.STOPPED) {
            count(QueryCounter.ABANDONED);
        }
        LOG.debug("query server of exchange {}: could not finish a reply: {}", exchange.name(), outcome);
        return false;
    }

    /** Stops serving (a reply in progress ends with {@code ERR UNAVAILABLE}) and unbinds; waits for the thread. Idempotent. */
    @Override
    public void close() {
        if (stopping && !thread.isAlive()) {
            return;
        }
        stopping = true;
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        LOG.info("exchange {}: query channel on {} closed after {} requests", exchange.name(), endpoint(), counter(QueryCounter.REQUESTS));
    }
}
