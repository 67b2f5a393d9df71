package io.sluice.query;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.charset.StandardCharsets;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * A client that knows only docs/query-protocol.md: a bare JeroMQ PAIR socket, commands as bytes,
 * frames as bytes. It does not use the client library. It reads slowly on purpose (tiny receive
 * buffers), so a large reply cannot all sit in socket buffers.
 */
final class RawPairClient implements AutoCloseable {

    private final ZContext context = new ZContext(1);
    private final ZMQ.Socket socket;

    private RawPairClient(String url) {
        socket = context.createSocket(SocketType.PAIR);
        socket.setLinger(0);
        // JeroMQ connecters sometimes stall in the handshake; docs/query-protocol.md tells JeroMQ clients to set this.
        socket.setHandshakeIvl(1000);
        socket.setReceiveBufferSize(4096);
        socket.setRcvHWM(1);
        socket.setReceiveTimeOut(10_000);
        socket.connect(url);
    }

    static RawPairClient connect(String url) {
        return new RawPairClient(url);
    }

    void send(String command) {
        socket.send(command.getBytes(StandardCharsets.ISO_8859_1), 0);
    }

    void send(byte[] command) {
        socket.send(command, 0);
    }

    void sendMultipart(String first, String second) {
        socket.sendMore(first.getBytes(StandardCharsets.ISO_8859_1));
        socket.send(second.getBytes(StandardCharsets.ISO_8859_1), 0);
    }

    byte[] receive() {
        byte[] frame = socket.recv(0);
        assertNotNull(frame, "a frame within 10 s");
        return frame;
    }

    @Override
    public void close() {
        context.close();
    }
}
