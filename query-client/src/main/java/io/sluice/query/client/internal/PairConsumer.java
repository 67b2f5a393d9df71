package io.sluice.query.client.internal;

import io.sluice.query.client.ExchangeConsumer;
import io.sluice.query.client.Query;
import io.sluice.query.client.QueryException;
import io.sluice.query.client.QueryTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

/**
 * The consumer over a JeroMQ PAIR socket. It watches its socket's monitor for a completed
 * connection, so that a silent server can be told apart from no server at all. Reading the
 * monitor socket directly uses JeroMQ's deprecated {@code ZMQ.Event}; {@code ZMonitor} would
 * add a thread per consumer for the same thing.
 *
 * <p>One thread at a time.
 */
@SuppressWarnings("deprecation")
public final class PairConsumer implements ExchangeConsumer {

    /** Messages the socket buffers towards the reader, so a slow reader holds the server back instead of filling memory. */
    private static final int RECEIVE_HWM = 8;
    /**
     * A connection whose ZMTP handshake has not completed by then is dropped and made again.
     * JeroMQ 0.6.0 connecters stall in the handshake now and then (about 3% of fresh connections
     * on a loaded 2-core machine, measured in docs/query-protocol.md); without this they stay
     * stalled for the default 30 s and every request on them is lost.
     */
    static final int HANDSHAKE_MILLIS = 1000;
    /**
     * Pause between closing a connection and making the next. The server's PAIR socket only takes
     * a new peer once it has dropped the old one, which it does the next time its thread polls;
     * a client that reconnects at once is refused silently most of the time (DEPENDENCIES.md: 94%
     * at 0 ms, 2% at 10 ms, none from 20 ms on).
     */
    static final long RECONNECT_PAUSE_MILLIS = 100;

    private final String url;
    private final int timeoutMillis;
    private final ZContext context;
    private ZMQ.Socket socket;
    private ZMQ.Socket monitor;
    private int sockets;
    private boolean everConnected;
    private FrameQuery current;
    private boolean closed;

    PairConsumer(String url, int timeoutMillis) {
        this.url = url;
        this.timeoutMillis = timeoutMillis;
        this.context = new ZContext(1);
        context.setThreadFactor((runnable, name) -> {
            Thread thread = new Thread(runnable, "sluice-consumer-zmq-" + name);
            thread.setDaemon(true);
            return thread;
        });
        context.setLinger(0);
        try {
            open();
        } catch (ZMQException | IllegalArgumentException e) {
            context.close();
            throw new QueryException("cannot connect to " + url + ": " + e.getMessage(), e);
        }
    }

    private void open() {
        socket = context.createSocket(SocketType.PAIR);
        socket.setLinger(0);
        socket.setHandshakeIvl(HANDSHAKE_MILLIS);
        socket.setRcvHWM(RECEIVE_HWM);
        socket.setReceiveTimeOut(timeoutMillis);
        socket.setSendTimeOut(timeoutMillis);
        String inproc = "inproc://sluice-consumer-monitor-" + (++sockets);
        socket.monitor(inproc, ZMQ.EVENT_CONNECTED);
        monitor = context.createSocket(SocketType.PAIR);
        monitor.connect(inproc);
        socket.connect(url);
    }

    private void reopen() {
        context.destroySocket(monitor);
        context.destroySocket(socket);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(RECONNECT_PAUSE_MILLIS));
        open();
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public Query query(String command) {
        if (closed) {
            throw new IllegalStateException("the consumer of " + url + " is closed");
        }
        if (current != null && !current.clean()) {
            // The rest of that reply is still on its way; a new connection cannot receive it.
            reopen();
        }
        current = new FrameQuery(this, command);
        send(command);
        return current;
    }

    void send(String command) {
        if (!socket.send(command.getBytes(StandardCharsets.UTF_8), 0)) {
            throw timeout("could not send the command within " + timeoutMillis + " ms");
        }
    }

    /** The next frame, or null after the timeout. */
    byte[] receive() {
        try {
            return socket.recv(0);
        } catch (ZMQException e) {
            throw new QueryException("receiving from " + url + " failed: " + e.getMessage(), e);
        }
    }

    /** Connects anew and sends the command again, for a reply of which nothing arrived. */
    boolean resend(String command) {
        if (!connected()) {
            return false;
        }
        reopen();
        send(command);
        return true;
    }

    boolean connected() {
        ZMQ.Event event;
        while ((event = ZMQ.Event.recv(monitor, ZMQ.DONTWAIT)) != null) {
            if (event.getEvent() == ZMQ.EVENT_CONNECTED) {
                everConnected = true;
            }
        }
        return everConnected;
    }

    QueryTimeoutException timeout(String what) {
        if (!connected()) {
            return new QueryTimeoutException("no query server at " + url + ": nothing accepted a connection within " + timeoutMillis
                    + " ms", false);
        }
        return new QueryTimeoutException("the query server at " + url + " " + what, true);
    }

    int timeoutMillis() {
        return timeoutMillis;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            context.close();
        }
    }
}
