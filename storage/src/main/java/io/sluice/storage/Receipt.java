package io.sluice.storage;

/**
 * What waits for a record handed to a writer thread to be stored, such as the held PUBACK of the
 * MQTT PUBLISH that carried it. Writers take receipts as plain {@link Runnable}s and run them once
 * the record is durable under the flush policy; when the record will not be stored (a full queue,
 * a failed write, an offline log) they settle the receipt with {@link #refuse(Runnable)} instead, so
 * a receipt that is a {@code Receipt} learns that nothing was stored, and one that is not (a
 * test's latch) simply runs. Either way a receipt is settled exactly once.
 */
public interface Receipt extends Runnable {

    /** The record will not be stored: whoever waits must not claim that it was. Must be quick and not block. */
    void refused();

    /** Settles {@code receipt} (may be null) for a record that will not be stored. */
    static void refuse(Runnable receipt) {
        if (receipt instanceof Receipt r) {
            r.refused();
        } else if (receipt != null) {
            receipt.run();
        }
    }
}
