package io.sluice.query;

import io.sluice.testing.Eventually;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.exchange.Exchange;
import io.sluice.query.client.Query;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The query threads run at their {@code query_nice}, read back from the kernel's view of this JVM. */
class QueryThreadNiceTest {

    private static final Path TASKS = Path.of("/proc/self/task");

    @TempDir
    Path dir;

    private Fixture fixture;

    @BeforeEach
    void setUp() {
        assumeTrue(Files.isReadable(Path.of("/proc/thread-self/stat")), "thread nice values are Linux-only");
        fixture = new Fixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void theQueryThreadAndItsZeroMqThreadsRunAtTheConfiguredNiceValue() throws Exception {
        assumeTrue(niceOf(Path.of("/proc/thread-self")) < 12, "this JVM already runs at nice 12 or more");
        Exchange exchange = fixture.exchange(fixture.raw("nq", 10));
        fixture.server(exchange, QueryServerSettings.defaults(Fixture.ANY_PORT).withSpoolDir(dir.resolve("spool")).withNice(12));

        // comm holds the first 15 characters of a thread's name: "sluice-query-nq" and "sluice-query-nq-...".
        Eventually.await(() -> {
            List<Integer> nices = nicesOf("sluice-query-nq");
            return nices.size() >= 2 && nices.stream().allMatch(n -> n == 12);
        }, () -> "nice values of the query threads: " + nicesOf("sluice-query-nq"));
    }

    @Test
    void niceZeroLeavesThePriorityAsTheJvmHasIt() throws Exception {
        int own = niceOf(Path.of("/proc/thread-self"));
        Exchange exchange = fixture.exchange(fixture.raw("nz", 10));
        QueryServer server = fixture.server(exchange,
                QueryServerSettings.defaults(Fixture.ANY_PORT).withSpoolDir(dir.resolve("spool")).withNice(0));
        try (Query query = fixture.consumer(server).query("sync-0-1")) {
            assertNotNull(query.nextFrame()); // the query thread has started and served
        }

        List<Integer> nices = nicesOf("sluice-query-nz");
        assertFalse(nices.isEmpty());
        assertTrue(nices.stream().allMatch(n -> n == own), nices + " should all be " + own);
    }

    private static int niceOf(Path task) throws IOException {
        return nice(Files.readString(task.resolve("stat")));
    }

    /** Field 19 of proc(5)'s stat line; counted after "(comm) ", since comm may hold spaces. */
    private static int nice(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(") ") + 2).split(" ");
        return Integer.parseInt(fields[16]);
    }

    /** The nice values of this JVM's threads whose name starts with {@code prefix}. */
    private static List<Integer> nicesOf(String prefix) {
        List<Integer> nices = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(TASKS)) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String comm;
                String stat;
                try {
                    comm = Files.readString(task.resolve("comm")).trim();
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException gone) {
                    continue; // the thread ended meanwhile
                }
                if (comm.startsWith(prefix)) {
                    nices.add(nice(stat));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return nices;
    }
}
