package io.sluice.bridges.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay between a bridge and its remote that a test opens and shuts: a network outage on
 * demand. While shut it cuts every relayed connection and refuses new ones (accepts and closes at
 * once, as a failing network path would look to the client); while open it relays bytes both ways.
 * It reads what the bridge sends as MQTT packets, so that it can also lose every PUBREL on demand
 * ({@link #losePubRel}): a QoS 2 exchange stopped after PUBREC, before PUBCOMP.
 */
public final class TcpGate implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger pubRelsLost = new AtomicInteger();
    private volatile boolean open;
    private volatile boolean losePubRel;

    private TcpGate(int targetPort, boolean open) throws IOException {
        this.targetPort = targetPort;
        this.open = open;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        Thread acceptor = new Thread(this::accept, "tcp-gate-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A gate in front of {@code 127.0.0.1:targetPort}, open or shut. */
    public static TcpGate to(int targetPort, boolean open) throws IOException {
        return new TcpGate(targetPort, open);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code mqtt-tcp://127.0.0.1:<gate port>}. */
    public String url() {
        return "mqtt-tcp://127.0.0.1:" + port();
    }

    public void open() {
        open = true;
    }

    /** While on, PUBREL packets from the bridge are dropped (and counted) instead of relayed. */
    public void losePubRel(boolean on) {
        losePubRel = on;
    }

    /** PUBREL packets dropped so far. */
    public int pubRelsLost() {
        return pubRelsLost.get();
    }

    /** Cuts every relayed connection and refuses new ones. */
    public void shut() {
        open = false;
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (!open) {
                    closeQuietly(client);
                    continue;
                }
                Socket target = new Socket("127.0.0.1", targetPort);
                client.setTcpNoDelay(true);
                target.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(target);
                pump(client, target, true);
                pump(target, client, false);
            } catch (IOException e) {
                // closed, or the target refused: the client sees its connection end
            }
        }
    }

    private void pump(Socket from, Socket to, boolean fromBridge) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16384];
            MqttFrames frames = new MqttFrames();
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (fromBridge) {
                        frames.relay(buffer, n, out);
                    } else {
                        out.write(buffer, 0, n);
                    }
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "tcp-gate-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /** Splits the bridge's byte stream into MQTT packets and relays each, unless it is a PUBREL to lose. */
    private final class MqttFrames {
        private static final int PUBREL = 0x62;
        private byte[] pending = new byte[16384];
        private int length;

        void relay(byte[] bytes, int n, OutputStream out) throws IOException {
            if (length + n > pending.length) {
                pending = Arrays.copyOf(pending, Math.max(pending.length * 2, length + n));
            }
            System.arraycopy(bytes, 0, pending, length, n);
            length += n;
            int start = 0;
            int size;
            while ((size = packetSize(start)) > 0 && start + size <= length) {
                if (losePubRel && (pending[start] & 0xFF) == PUBREL) {
                    pubRelsLost.incrementAndGet();
                } else {
                    out.write(pending, start, size);
                }
                start += size;
            }
            System.arraycopy(pending, start, pending, 0, length - start);
            length -= start;
        }

        /** The size of the packet at {@code start} (fixed header included), or 0 if its header is incomplete. */
        private int packetSize(int start) {
            int remaining = 0;
            for (int i = 1; i <= 4; i++) {
                if (start + i >= length) {
                    return 0;
                }
                int b = pending[start + i] & 0xFF;
                remaining |= (b & 0x7F) << (7 * (i - 1));
                if ((b & 0x80) == 0) {
                    return 1 + i + remaining;
                }
            }
            throw new IllegalStateException("malformed MQTT remaining length from the bridge");
        }
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
        shut();
        server.close();
    }
}
