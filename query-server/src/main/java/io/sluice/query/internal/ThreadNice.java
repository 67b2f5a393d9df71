package io.sluice.query.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lowers the calling thread's scheduling priority (its Linux nice value), so that the work it does
 * only takes CPU the broker's event loops and capture threads leave idle. A query is a scan that
 * decompresses and decodes as fast as the CPU allows; at nice 19 the kernel gives it about 1.5 %
 * of a contended core and all of an idle one.
 *
 * <p>Java has no call for it: on Linux every thread has its own nice value, set with
 * {@code renice -p <thread id>}, and the thread's id is the first field of
 * {@code /proc/thread-self/stat}. One short child process per thread, at its start. Lowering a
 * priority needs no privilege. Elsewhere (no {@code /proc}), or when {@code renice} fails, the
 * thread keeps its priority and a warning says why.
 */
public final class ThreadNice {
    private static final Logger LOG = LoggerFactory.getLogger(ThreadNice.class);
    private static final Path SELF = Path.of("/proc/thread-self/stat");
    private static final long RENICE_TIMEOUT_SECONDS = 5;

    private ThreadNice() {
    }

    /** Sets the calling thread's nice value to {@code nice} (1 to 19); 0 leaves it as it is. */
    public static void applyToCurrentThread(int nice, String exchange) {
        if (nice == 0) {
            return;
        }
        String thread = Thread.currentThread().getName();
        try {
            if (!Files.isReadable(SELF)) {
                LOG.warn("exchange {}: thread {} keeps its priority: no {} to find its thread id (query_nice {} needs Linux)",
                        exchange, thread, SELF, nice);
                return;
            }
            String stat = Files.readString(SELF, StandardCharsets.US_ASCII);
            String tid = stat.substring(0, stat.indexOf(' '));
            renice(nice, tid);
            LOG.debug("exchange {}: thread {} (id {}) runs at nice {}", exchange, thread, tid, nice);
        } catch (IOException | RuntimeException e) {
            LOG.warn("exchange {}: thread {} keeps its priority, query_nice {} could not be applied: {}", exchange, thread, nice,
                    e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void renice(int nice, String tid) throws IOException, InterruptedException {
        Process process = new ProcessBuilder("renice", "-n", Integer.toString(nice), "-p", tid)
                .redirectErrorStream(true)
                .start();
        String output;
        try (InputStream out = process.getInputStream()) {
            output = new String(out.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
        if (!process.waitFor(RENICE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("renice did not finish within " + RENICE_TIMEOUT_SECONDS + " s");
        }
        if (process.exitValue() != 0) {
            throw new IOException("renice -n " + nice + " -p " + tid + " exited with " + process.exitValue() + ": " + output);
        }
    }
}
