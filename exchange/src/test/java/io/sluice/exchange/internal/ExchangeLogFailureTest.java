package io.sluice.exchange.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.exchange.ExchangeCounter;
import io.sluice.storage.CountingReceipt;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.Log;
import io.sluice.storage.LogSettings;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-ahead log's commit on the ring thread throws what no storage code expects (an
 * {@link InternalError}, as a faulting mapped write raises): the receipt waiting for it is refused,
 * exactly once, instead of waiting forever, every later message is refused, and the log says why.
 */
class ExchangeLogFailureTest {

    @TempDir
    Path dir;

    /** A real log whose commit throws {@code error} while one is set. */
    private static Log failingCommits(Log log, AtomicReference<Error> error) {
        return (Log) Proxy.newProxyInstance(Log.class.getClassLoader(), new Class<?>[] {Log.class}, (proxy, method, args) -> {
            Error thrown = error.get();
            if (thrown != null && method.getName().equals("commit")) {
                throw thrown;
            }
            try {
                return method.invoke(log, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    private static long logged(ExchangeLog wal, long ts, Runnable receipt) {
        long offset = wal.append(ts, "t/" + ts, new byte[] {(byte) ts});
        if (offset >= 0) {
            wal.whenDurable(offset, receipt);
        }
        return offset;
    }

    @Test
    void anErrorInACommitRefusesWhatWaitsAndEveryMessageAfter() {
        AtomicLongArray counts = new AtomicLongArray(ExchangeCounter.values().length);
        AtomicReference<Error> error = new AtomicReference<>();
        Log log = Log.open(dir, "wal-ex", LogSettings.builder().flush(FlushPolicy.NONE).build());
        ExchangeLog wal = ExchangeLog.over("ex", failingCommits(log, error), counts);
        try {
            CountingReceipt stored = new CountingReceipt();
            logged(wal, 1, stored);
            wal.commit();
            assertEquals(1, stored.stored.get(), "stored while the log works");

            error.set(new InternalError("a fault occurred in an unsafe memory access operation"));
            CountingReceipt waiting = new CountingReceipt();
            logged(wal, 2, waiting);
            wal.commit();
            assertEquals(1, waiting.refused.get(), "the receipt waiting at the error is refused");
            assertEquals(0, waiting.stored.get(), "and never taken for stored");

            error.set(null);
            assertEquals(-1, logged(wal, 3, new CountingReceipt()), "a message after the error is refused");
            assertFalse(wal.isAvailable());
            assertTrue(String.valueOf(wal.problem()).startsWith("offline until restarted: java.lang.InternalError: a fault"),
                    wal.problem());
            assertEquals(1, counts.get(ExchangeCounter.WAL_FAILURES.ordinal()));
            assertEquals(1, counts.get(ExchangeCounter.WAL_RECEIPTS_REFUSED.ordinal()));
        } finally {
            error.set(null);
            wal.close();
        }
    }
}
