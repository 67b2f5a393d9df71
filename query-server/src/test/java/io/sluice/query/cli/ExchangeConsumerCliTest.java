package io.sluice.query.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.exchange.Exchange;
import io.sluice.exchange.ExchangeSettings;
import io.sluice.query.QueryServer;
import io.sluice.query.QueryServerSettings;
import io.sluice.query.client.ExchangeConsumer;
import io.sluice.query.client.Query;
import io.sluice.ringbus.RingCounter;
import io.sluice.stream.PluginRegistry;
import io.sluice.testing.Eventually;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs {@code bin/exchange-consumer} as a process against a server started here. */
class ExchangeConsumerCliTest {

    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    static Path dir;

    private static Exchange exchange;
    private static QueryServer server;

    /** What a finished process said. */
    private record Run(int status, String out, String err) {
    }

    @BeforeAll
    static void start() throws IOException {
        exchange = Exchange.open(ExchangeSettings.defaults("cli", "t/#", dir.resolve("files").toString()), PluginRegistry.withBuiltIns());
        for (int i = 0; i < 3; i++) {
            exchange.offer("t/" + i, ("m-" + i).getBytes(StandardCharsets.UTF_8), T0 + i);
        }
        exchange.offer("t/bin", new byte[] {0, 1, (byte) 0xFF}, T0 + 3);
        Eventually.await(() -> exchange.counter(RingCounter.RECEIVED) == 4, "the exchange has received the 4 messages");
        server = QueryServer.open(exchange, QueryServerSettings.defaults("tcp://127.0.0.1:*"));
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        exchange.close();
    }

    private static Run run(String... args) throws Exception {
        Path script = Path.of("").toAbsolutePath().getParent().resolve("bin/exchange-consumer");
        List<String> command = new ArrayList<>(List.of("sh", script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("EXCHANGE_CONSUMER_CLASSPATH", System.getProperty("java.class.path"));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Path err = Files.createTempFile(dir, "err", ".txt");
        builder.redirectError(err.toFile());
        Process process = builder.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        process.getInputStream().transferTo(out);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the tool ended");
        return new Run(process.exitValue(), out.toString(StandardCharsets.UTF_8), Files.readString(err));
    }

    @Test
    void byDefaultItPrintsTheSizeOfEachFrameAndExitsZeroAfterEof() throws Exception {
        Run run = run("--url", server.endpoint(), "sync-0-9223372036854775807");
        assertEquals(0, run.status(), run.err());
        assertEquals("Received " + (4 * 12 + 3 * 3 + 3) + " bytes\n", run.out());
    }

    @Test
    void withRecordsItPrintsEachRecordAsTextOrHex() throws Exception {
        Run run = run("--url", server.endpoint(), "--records", "async-0-9223372036854775807-ts,topic,data");
        assertEquals(0, run.status(), run.err());
        assertEquals("ts=" + T0 + " topic=\"t/0\" data=\"m-0\"\n"
                + "ts=" + (T0 + 1) + " topic=\"t/1\" data=\"m-1\"\n"
                + "ts=" + (T0 + 2) + " topic=\"t/2\" data=\"m-2\"\n"
                + "ts=" + (T0 + 3) + " topic=\"t/bin\" data=0x0001ff\n", run.out());
    }

    @Test
    void withOutItWritesTheRawFrames() throws Exception {
        Path file = dir.resolve("frames.bin");
        Run run = run("--url", server.endpoint(), "--out", file.toString(), "async-0-9223372036854775807");
        assertEquals(0, run.status(), run.err());
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (ExchangeConsumer consumer = ExchangeConsumer.builder().url(server.endpoint()).timeout(Duration.ofSeconds(5)).connect();
             Query query = consumer.query("async-0-9223372036854775807")) {
            query.frames().forEachRemaining(expected::writeBytes);
        }
        assertArrayEquals(expected.toByteArray(), Files.readAllBytes(file));
    }

    @Test
    void anErrReplyExitsOneWithTheServersWords() throws Exception {
        Run run = run("--url", server.endpoint(), "sync-9-1");
        assertEquals(1, run.status());
        assertTrue(run.err().contains("ERR BAD_RANGE end 1 is before start 9"), run.err());
    }

    @Test
    void noServerAtTheUrlExitsFourAndSaysSo() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Run run = run("--url", "tcp://127.0.0.1:" + port, "--timeout", "0.5", "sync-0-1");
        assertEquals(4, run.status());
        assertTrue(run.err().contains("no query server at tcp://127.0.0.1:" + port), run.err());
    }

    @Test
    void badArgumentsExitTwoWithTheUsage() throws Exception {
        Run run = run("--timeout", "soon", "sync-0-1");
        assertEquals(2, run.status());
        assertTrue(run.err().contains("--timeout") && run.err().contains("usage: exchange-consumer"), run.err());
        assertEquals(2, run().status());
    }
}
