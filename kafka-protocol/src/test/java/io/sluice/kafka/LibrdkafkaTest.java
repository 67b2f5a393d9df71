package io.sluice.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.testing.Command;
import io.sluice.kafka.testing.TestBroker;
import io.sluice.storage.LogSettings;
import io.sluice.streams.Stream;
import io.sluice.streams.StreamSettings;

/**
 * librdkafka 2.0 as Debian ships it: kcat 1.7 and python3-confluent-kafka 1.7 (packages {@code kcat}
 * and {@code python3-confluent-kafka}), with their default settings.
 */
class LibrdkafkaTest {
    @TempDir
    static Path dir;
    static TestBroker broker;
    static String kcat;

    @BeforeAll
    static void start() {
        kcat = Command.require("kcat", "kcat");
        broker = TestBroker.start(dir, List.of(StreamSettings.of("kcat", "kcat/#", 3, LogSettings.defaults()),
                StreamSettings.of("compressed", "compressed/#", 1, LogSettings.defaults()),
                StreamSettings.of("grouped", "grouped/#", 2, LogSettings.defaults()),
                StreamSettings.of("python", "python/#", 3, LogSettings.defaults())));
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static Command.Result kcat(String input, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(kcat, "-b", broker.bootstrap(), "-X", "socket.timeout.ms=10000"));
        command.addAll(Arrays.asList(args));
        Command.Result result = Command.run(command, input, 60);
        assertEquals(0, result.exitCode(), () -> String.join(" ", command) + " failed: " + result.stderr());
        return result;
    }

    @Test
    void kcatListsTheTopicsAndTheirPartitions() throws Exception {
        String metadata = kcat(null, "-L").stdout();
        assertTrue(metadata.contains("1 brokers:"), metadata);
        assertTrue(metadata.contains("topic \"kcat\" with 3 partitions:"), metadata);
        assertTrue(metadata.contains("partition 2, leader 0, replicas: 0, isrs: 0"), metadata);
    }

    @Test
    void kcatProducesAndConsumesFromTheBeginningToTheEnd() throws Exception {
        String lines = IntStream.range(0, 50).mapToObj(i -> "key" + (i % 5) + ":value" + i).collect(Collectors.joining("\n"));
        kcat(lines + "\n", "-P", "-t", "kcat", "-K", ":");
        String consumed = kcat(null, "-C", "-t", "kcat", "-o", "beginning", "-e", "-q", "-f", "%k=%s\n").stdout();
        Set<String> got = new HashSet<>(Arrays.asList(consumed.trim().split("\n")));
        Set<String> expected = IntStream.range(0, 50).mapToObj(i -> "key" + (i % 5) + "=value" + i).collect(Collectors.toSet());
        assertEquals(expected, got);
    }

    @ParameterizedTest(name = "-z {0}")
    @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
    void kcatCompressesWithEveryCodec(String codec) throws Exception {
        String value = (codec + "-compressible-").repeat(200);
        Stream stream = broker.streams().get("compressed");
        long before = stream.endOffset(0);
        kcat(value + "\n", "-P", "-t", "compressed", "-p", "0", "-z", codec);
        String consumed = kcat(null, "-C", "-t", "compressed", "-p", "0", "-o", Long.toString(before), "-e", "-q",
                "-f", "%s\n").stdout();
        assertEquals(value, consumed.trim());
    }

    @Test
    void kcatConsumesAsAGroupAndCommits() throws Exception {
        kcat(IntStream.range(0, 20).mapToObj(i -> "g" + i).collect(Collectors.joining("\n")) + "\n", "-P", "-t", "grouped");
        String consumed = kcat(null, "-G", "kcat-group", "-o", "beginning", "-e", "-q", "-f", "%s\n",
                "-X", "enable.auto.commit=true", "-X", "auto.commit.interval.ms=100", "grouped").stdout();
        Set<String> got = new HashSet<>(Arrays.asList(consumed.trim().split("\n")));
        assertEquals(IntStream.range(0, 20).mapToObj(i -> "g" + i).collect(Collectors.toSet()), got);
        Stream stream = broker.streams().get("grouped");
        long committed = stream.committedOffset("kcat-group", 0).orElse(0) + stream.committedOffset("kcat-group", 1).orElse(0);
        assertEquals(20, committed, "the group committed what it consumed");
    }

    @Test
    void pythonConsumersShareAGroupAndCommit() throws Exception {
        String python = Command.require("python3", "python3-confluent-kafka");
        kcat(IntStream.range(0, 60).mapToObj(i -> "p" + i).collect(Collectors.joining("\n")) + "\n", "-P", "-t", "python");
        String script = String.join("\n",
                "import sys",
                "from confluent_kafka import Consumer",
                "conf = {'bootstrap.servers': sys.argv[1], 'group.id': 'py-group', 'auto.offset.reset': 'earliest',",
                "        'enable.auto.commit': False, 'session.timeout.ms': 6000, 'heartbeat.interval.ms': 500}",
                "consumers = [Consumer(conf), Consumer(conf)]",
                "for c in consumers: c.subscribe(['python'])",
                "seen = []",
                "import time",
                "deadline = time.time() + 40",
                "while len(seen) < 60 and time.time() < deadline:",
                "    for c in consumers:",
                "        m = c.poll(0.2)",
                "        if m is None: continue",
                "        if m.error(): print('error', m.error(), file=sys.stderr); continue",
                "        seen.append(m.value().decode())",
                "        c.commit(message=m, asynchronous=False)",
                "for c in consumers: c.close()",
                "print('\\n'.join(seen))");
        Command.Result result = Command.run(List.of(python, "-c", script, broker.bootstrap()), "", 90);
        assertEquals(0, result.exitCode(), result.stderr());
        List<String> seen = Arrays.asList(result.stdout().trim().split("\n"));
        assertEquals(60, seen.size(), "each message once: " + result.stderr());
        assertEquals(IntStream.range(0, 60).mapToObj(i -> "p" + i).collect(Collectors.toSet()), new HashSet<>(seen));
        Stream stream = broker.streams().get("python");
        long committed = 0;
        for (int p = 0; p < 3; p++) {
            committed += stream.committedOffset("py-group", p).orElse(0);
        }
        assertEquals(60, committed);
    }
}
