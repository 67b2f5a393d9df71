package io.sluice.broker.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.broker.metrics.BrokerMetrics;

import io.sluice.storage.CountingReceipt;
import io.sluice.storage.StorageAdapter;
import io.sluice.testing.Eventually;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/**
 * A journal whose writer thread fails outright (not a refused write: an error such as the one a
 * memory-mapped write on a full disk raises) still answers every acknowledgement that waits for it,
 * by refusing it, instead of leaving the PUBLISH neither acknowledged nor refused; it says why
 * ({@link StateJournal#problem}, which {@code /health} shows) and counts the failure and each refusal.
 */
class StateJournalFailureTest {

    /** A storage adapter whose batch write fails with an error, as a faulting mapped write does. */
    private static StorageAdapter failingStorage() {
        return (StorageAdapter) Proxy.newProxyInstance(StorageAdapter.class.getClassLoader(), new Class<?>[] {StorageAdapter.class},
                (proxy, method, args) -> {
                    throw new InternalError("a fault occurred in an unsafe memory access operation (in " + method.getName() + ")");
                });
    }

    @Test
    void aWriterThatFailsRefusesWhatWaitsForItAndWhatComesAfter() {
        StateJournal journal = new StateJournal(failingStorage(), BrokerState.SHARD, StateJournal.Seeds.empty());
        BrokerMetrics metrics = new BrokerMetrics();
        journal.countIn(metrics);
        try {
            assertNull(journal.problem(), "healthy until it fails");
            CountingReceipt waiting = new CountingReceipt();
            journal.qos2Received("publisher", 1);
            journal.whenWritten(waiting);
            Eventually.await(() -> waiting.settled() > 0, "the acknowledgement waiting for the failed write is answered");
            assertEquals(1, waiting.refused.get(), "refused, exactly once");
            assertEquals(0, waiting.stored.get(), "never claimed as written");

            CountingReceipt later = new CountingReceipt();
            journal.qos2Received("publisher", 2);
            journal.whenWritten(later);
            Eventually.await(() -> later.settled() > 0, "an acknowledgement that waits after the writer failed is answered");
            assertEquals(1, later.refused.get(), "refused, exactly once");

            String problem = journal.problem();
            assertTrue(problem != null && problem.contains("java.lang.InternalError: a fault occurred")
                    && problem.contains("until the broker is restarted"), "the journal says why: " + problem);
            assertEquals(1, metrics.get(BrokerCounter.STATE_JOURNAL_FAILURES));
            assertEquals(2, metrics.get(BrokerCounter.STATE_WRITES_REFUSED), "each refusal is counted");
        } finally {
            journal.close();
        }
    }
}
