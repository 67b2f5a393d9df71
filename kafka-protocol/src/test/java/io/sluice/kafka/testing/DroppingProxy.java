package io.sluice.kafka.testing;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of a Kafka listener that loses Produce responses: after forwarding a Produce
 * request to the broker, it can cut the connection before the response reaches the client, the way
 * a network failure does. The producer then retries a batch the broker already appended.
 */
public final class DroppingProxy implements AutoCloseable {
    private final ServerSocket server;
    private final AtomicInteger toDrop = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private volatile int target;

    public DroppingProxy() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "dropping-proxy");
        accept.setDaemon(true);
        accept.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Where connections are forwarded: the broker's real port. */
    public void forwardTo(int port) {
        this.target = port;
    }

    /** Cut the next {@code count} connections that are about to deliver a Produce response. */
    public void dropProduceResponses(int count) {
        toDrop.set(count);
    }

    public int dropped() {
        return dropped.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket broker = new Socket(InetAddress.getLoopbackAddress(), target);
                Set<Integer> produces = ConcurrentHashMap.newKeySet();
                pump(client, broker, produces, true);
                pump(broker, client, produces, false);
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, Set<Integer> produces, boolean requests) {
        Thread thread = new Thread(() -> {
            try (DataInputStream in = new DataInputStream(from.getInputStream());
                 DataOutputStream out = new DataOutputStream(to.getOutputStream())) {
                while (true) {
                    byte[] frame = new byte[in.readInt()];
                    in.readFully(frame);
                    ByteBuffer buffer = ByteBuffer.wrap(frame);
                    if (requests) {
                        if (buffer.getShort(0) == 0) {
                            produces.add(buffer.getInt(4));
                        }
                    } else if (produces.remove(buffer.getInt(0)) && toDrop.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                        dropped.incrementAndGet();
                        from.close();
                        to.close();
                        return;
                    }
                    out.writeInt(frame.length);
                    out.write(frame);
                    out.flush();
                }
            } catch (IOException e) {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "dropping-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
