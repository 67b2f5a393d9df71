package io.sluice.query.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

class ExchangeConsumerTest {

    private static final byte[] EOF = {0x0B, (byte) 0xAD};

    @Test
    void nothingListeningAtTheUrlIsATimeoutThatSaysSo() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        try (ExchangeConsumer consumer = ExchangeConsumer.builder().url("tcp://127.0.0.1:" + port).timeout(Duration.ofMillis(300)).connect();
             Query query = consumer.query("sync-1-2")) {
            QueryTimeoutException e = assertThrows(QueryTimeoutException.class, query::nextFrame);
            assertFalse(e.connected());
            assertTrue(e.getMessage().contains("no query server at tcp://127.0.0.1:" + port), e.getMessage());
        }
    }

    /**
     * A server that loses the first request, as PAIR does when a client connects too early, and
     * answers the next. The timeout leaves room for the new connection's handshake to be retried
     * (PairConsumer.HANDSHAKE_MILLIS), as it is now and then on a loaded machine.
     */
    @Test
    void aLostFirstRequestIsSentAgainOnANewConnectionOnce() throws Exception {
        List<String> requests = new CopyOnWriteArrayList<>();
        try (ZContext context = new ZContext(1)) {
            ZMQ.Socket server = context.createSocket(SocketType.PAIR);
            server.setLinger(0);
            server.setReceiveTimeOut(20);
            server.bind("tcp://127.0.0.1:*");
            String url = server.getLastEndpoint();
            Thread thread = new Thread(() -> {
                while (requests.size() < 2 && !Thread.currentThread().isInterrupted()) {
                    byte[] request = server.recv(0);
                    if (request != null) {
                        requests.add(new String(request, StandardCharsets.US_ASCII));
                        if (requests.size() == 2) {
                            server.send(new byte[] {1, 2, 3}, 0);
                            server.send(EOF, 0);
                        }
                    }
                }
            });
            thread.start();
            Duration timeout = Duration.ofSeconds(3);
            try (ExchangeConsumer consumer = ExchangeConsumer.builder().url(url).timeout(timeout).connect();
                 Query query = consumer.query("async-1-2")) {
                assertArrayEquals(new byte[] {1, 2, 3}, query.nextFrame());
                assertNull(query.nextFrame());
                assertTrue(query.done());
                assertEquals(1, query.frameCount());
            } finally {
                thread.interrupt();
                thread.join();
            }
            assertEquals(List.of("async-1-2", "async-1-2"), requests);
        }
    }

    @Test
    void anErrFrameBecomesAQueryErrorAndTheConsumerServesTheNextQuery() throws Exception {
        try (ZContext context = new ZContext(1)) {
            ZMQ.Socket server = context.createSocket(SocketType.PAIR);
            server.setLinger(0);
            server.bind("tcp://127.0.0.1:*");
            try (ExchangeConsumer consumer = ExchangeConsumer.builder().url(server.getLastEndpoint()).timeout(Duration.ofSeconds(5)).connect()) {
                Query first = consumer.query("sync-9-1");
                assertEquals("sync-9-1", server.recvStr());
                server.send("ERR BAD_RANGE end 1 is before start 9");
                server.send(EOF, 0);
                QueryError error = assertThrows(QueryError.class, first::nextFrame);
                assertEquals("BAD_RANGE", error.code());
                assertEquals("end 1 is before start 9", error.reason());
                first.close();

                Query second = consumer.query("sync-1-9");
                assertEquals("sync-1-9", server.recvStr());
                server.send(new byte[0], 0);
                server.send(EOF, 0);
                assertEquals(0, second.nextFrame().length);
                assertNull(second.nextFrame());
            }
        }
    }
}
