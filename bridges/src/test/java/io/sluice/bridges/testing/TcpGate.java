package io.sluice.bridges.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay between a bridge and its remote that a test opens and shuts: a network outage on
 * demand. While shut it cuts every relayed connection and refuses new ones (accepts and closes at
 * once, as a failing network path would look to the client); while open it relays bytes both ways.
 */
public final class TcpGate implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean open;

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
                pump(client, target);
                pump(target, client);
            } catch (IOException e) {
                // closed, or the target refused: the client sees its connection end
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
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
