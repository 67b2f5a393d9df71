package io.sluice.query.internal;

import io.sluice.query.QueryCounter;
import io.sluice.stream.CommandParser;
import io.sluice.query.wire.EofFrame;
import java.net.BindException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;
import zmq.Msg;

/**
 * One exchange's bound ZeroMQ PAIR socket and the monitor that tells when its peer leaves.
 *
 * <p>PAIR has one peer at a time and says nothing when it changes, so two rules keep replies
 * where they belong (DEPENDENCIES.md measures the traps):
 * <ul>
 *   <li>The socket is always being polled in short slices ({@value #POLL_MILLIS} ms), so a
 *       departed peer is dropped promptly and the next client's pipe is attached.</li>
 *   <li>A reply goes only to the peer that asked. The socket monitor reports every closed
 *       connection before ZeroMQ detaches its pipe, so the endpoint counts closed connections
 *       up to the moment it takes a request and, before every frame and while it waits for room
 *       to send one, checks that none closed since. If one did, the reply is abandoned rather
 *       than risk its frames reaching a client that connected meanwhile. (A refused second client
 *       that leaves during a reply also counts, which abandons that reply too: the client then
 *       times out and asks again, which is safe; a stale frame would not be.)</li>
 * </ul>
 * Sends never block: each frame waits at most {@code send_timeout} for room (the socket's send
 * high-water mark is {@value #SEND_HWM} frames, so a slow client holds back the reader instead
 * of piling frames up in memory).
 *
 * <p>Bound on the thread that opens the server, used only by the server's thread afterwards.
 * {@code ZMQ.Event} is deprecated in JeroMQ 0.6 in favour of {@code ZMonitor}, which relays events
 * through a thread of its own; reading the monitor socket directly keeps the ordering the rule
 * above relies on (the event is readable before ZeroMQ detaches the pipe).
 */
@SuppressWarnings("deprecation")
public final class PairEndpoint implements AutoCloseable {

    /** Longest wait on the socket before the server thread looks at its flags again. */
    public static final int POLL_MILLIS = 50;
    /** Frames queued towards a client before a send waits for it to read. */
    public static final int SEND_HWM = 4;
    /** Longest request accepted by ZeroMQ; a larger message closes the client's connection. */
    public static final int MAX_REQUEST_BYTES = 16 * CommandParser.MAX_COMMAND_LENGTH;

    /** An accepted connection whose handshake has not completed by then is dropped (the client connects again). */
    public static final int HANDSHAKE_MILLIS = 2000;

    private static final Logger LOG = LoggerFactory.getLogger(PairEndpoint.class);
    private static final int MONITORED = ZMQ.EVENT_ACCEPTED | ZMQ.EVENT_DISCONNECTED;

    /** How a send ended. */
    public enum Outcome {
        /** Queued for the peer that asked. */
        SENT,
        /** That peer's connection closed. */
        PEER_LEFT,
        /** It did not take the frame within {@code send_timeout}. */
        TIMED_OUT,
        /** The server is stopping. */
        STOPPED
    }

    /** A request: its bytes, and whether it came as more than one frame (which is invalid). */
    public record Request(byte[] bytes, boolean multipart) {
    }

    private final String exchange;
    private final ZContext context;
    private final ZMQ.Socket socket;
    private final ZMQ.Socket monitor;
    private final ZMQ.Poller readable;
    private final ZMQ.Poller writable;
    private final String endpoint;
    private final long sendTimeoutNanos;
    private final BooleanSupplier stopping;
    private final AtomicLongArray counts;
    private long disconnects;
    private long disconnectsAtRequest;

    private PairEndpoint(String exchange, ZContext context, ZMQ.Socket socket, ZMQ.Socket monitor, long sendTimeoutNanos,
                         BooleanSupplier stopping, AtomicLongArray counts) {
        this.exchange = exchange;
        this.context = context;
        this.socket = socket;
        this.monitor = monitor;
        this.endpoint = socket.getLastEndpoint();
        this.sendTimeoutNanos = sendTimeoutNanos;
        this.stopping = stopping;
        this.counts = counts;
        this.readable = context.createPoller(2);
        readable.register(socket, ZMQ.Poller.POLLIN);
        readable.register(monitor, ZMQ.Poller.POLLIN);
        this.writable = context.createPoller(2);
        writable.register(socket, ZMQ.Poller.POLLOUT);
        writable.register(monitor, ZMQ.Poller.POLLIN);
    }

    /**
     * Binds a PAIR socket to {@code url}; its ZeroMQ threads run at {@code nice} (see {@link ThreadNice}).
     *
     * @throws BindException naming the exchange and the URL when the address is taken, unknown or
     *                       not local
     */
    public static PairEndpoint bind(String exchange, String url, long sendTimeoutNanos, int nice, BooleanSupplier stopping,
                                    AtomicLongArray counts) throws BindException {
        ZContext context = new ZContext(1);
        context.setThreadFactor((runnable, name) -> {
            Runnable niced = () -> {
                ThreadNice.applyToCurrentThread(nice, exchange);
                runnable.run();
            };
            Thread thread = new Thread(niced, "sluice-query-" + exchange + "-zmq-" + name);
            thread.setDaemon(true);
            return thread;
        });
        context.setUncaughtExceptionHandler((thread, e) -> LOG.error("query server of exchange {}: ZeroMQ thread {} failed", exchange,
                thread.getName(), e));
        context.setLinger(0);
        try {
            ZMQ.Socket socket = context.createSocket(SocketType.PAIR);
            socket.setLinger(0);
            socket.setHandshakeIvl(HANDSHAKE_MILLIS);
            socket.setSndHWM(SEND_HWM);
            socket.setRcvHWM(16);
            socket.setMaxMsgSize(MAX_REQUEST_BYTES);
            socket.bind(url);
            String inproc = "inproc://sluice-query-monitor";
            socket.monitor(inproc, MONITORED);
            ZMQ.Socket monitor = context.createSocket(SocketType.PAIR);
            monitor.connect(inproc);
            return new PairEndpoint(exchange, context, socket, monitor, sendTimeoutNanos, stopping, counts);
        } catch (ZMQException | IllegalArgumentException e) {
            context.close();
            BindException failure = new BindException("exchange " + exchange + ": cannot bind its query channel to exchange_url "
                    + url + ": " + reason(e));
            failure.initCause(e);
            throw failure;
        }
    }

    private static String reason(RuntimeException e) {
        if (e instanceof ZMQException zmq) {
            String text = zmq.getMessage();
            return text == null ? "ZeroMQ error " + zmq.getErrorCode() : text;
        }
        return String.valueOf(e.getMessage());
    }

    /** The address actually bound, with the port resolved when the URL asked for {@code *}. */
    public String endpoint() {
        return endpoint;
    }

    /**
     * Waits up to {@link #POLL_MILLIS} for a request.
     *
     * @return the request, or null when none came
     */
    public Request receive() {
        readable.poll(POLL_MILLIS);
        drainMonitor();
        long before = disconnects;
        byte[] bytes = socket.recv(ZMQ.DONTWAIT);
        if (bytes == null) {
            return null;
        }
        // Connections closed before this request cannot be its sender's; later ones may be.
        disconnectsAtRequest = before;
        boolean multipart = false;
        while (socket.hasReceiveMore()) {
            multipart = true;
            socket.recv(ZMQ.DONTWAIT);
        }
        return new Request(bytes, multipart);
    }

    /** Sends a copy of the buffer's remaining bytes; the caller may reuse the buffer at once. */
    public Outcome send(ByteBuffer frame) {
        byte[] copy = new byte[frame.remaining()];
        frame.duplicate().get(copy);
        return send(new Msg(copy));
    }

    /** Sends the buffer's remaining bytes without copying them; the caller must never change it again. */
    public Outcome sendOwned(ByteBuffer frame) {
        return send(new Msg(frame));
    }

    /** Sends a frame the caller hands over and never changes again. */
    public Outcome send(byte[] frame) {
        return send(new Msg(frame));
    }

    /** Sends the EOF frame. */
    public Outcome sendEof() {
        return send(new Msg(EofFrame.bytes()));
    }

    /** Sends a frame if there is room right now, whatever else happened; for the last words of a stopping server. */
    public boolean sendNow(byte[] frame) {
        return socket.sendMsg(new Msg(frame), ZMQ.DONTWAIT);
    }

    private Outcome send(Msg msg) {
        long deadline = System.nanoTime() + sendTimeoutNanos;
        while (true) {
            drainMonitor();
            if (disconnects != disconnectsAtRequest) {
                return Outcome.PEER_LEFT;
            }
            if (stopping.getAsBoolean()) {
                return Outcome.STOPPED;
            }
            if (socket.sendMsg(msg, ZMQ.DONTWAIT)) {
                return Outcome.SENT;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Outcome.TIMED_OUT;
            }
            writable.poll(Math.max(1, Math.min(POLL_MILLIS, left / 1_000_000)));
        }
    }

    private void drainMonitor() {
        ZMQ.Event event;
        while ((event = ZMQ.Event.recv(monitor, ZMQ.DONTWAIT)) != null) {
            if (event.getEvent() == ZMQ.EVENT_DISCONNECTED) {
                disconnects++;
                counts.incrementAndGet(QueryCounter.DISCONNECTIONS.ordinal());
                LOG.debug("query server of exchange {}: a client connection to {} closed", exchange, endpoint);
            } else if (event.getEvent() == ZMQ.EVENT_ACCEPTED) {
                counts.incrementAndGet(QueryCounter.CONNECTIONS.ordinal());
                LOG.debug("query server of exchange {}: accepted a client connection on {}", exchange, endpoint);
            }
        }
    }

    /** Closes the sockets and the ZeroMQ context; on the server's thread. */
    @Override
    public void close() {
        context.close();
    }
}
