package io.sluice.streams;

/**
 * Who wrote a batch, for idempotent appends (Kafka's producer id, epoch and sequence numbers): a
 * batch whose sequence numbers were already appended for the same producer and epoch is answered
 * with its original offset instead of being appended again. Sequence numbers wrap from
 * {@link Integer#MAX_VALUE} to 0.
 *
 * @param producerId   the producer id, at least 0
 * @param epoch        the producer epoch
 * @param baseSequence the sequence number of the first record
 * @param count        how many records the batch holds, at least 1
 */
public record ProducerBatch(long producerId, short epoch, int baseSequence, int count) {

    public ProducerBatch {
        if (producerId < 0 || baseSequence < 0 || count < 1) {
            throw new IllegalArgumentException("producer batch needs producer id >= 0, base sequence >= 0 and a record,"
                    + " got id " + producerId + ", sequence " + baseSequence + ", " + count + " records");
        }
    }

    /** The sequence number of the last record. */
    public int lastSequence() {
        return increment(baseSequence, count - 1);
    }

    /** {@code sequence + n}, wrapping past {@link Integer#MAX_VALUE} to 0 as Kafka's producers do. */
    public static int increment(int sequence, int n) {
        return sequence > Integer.MAX_VALUE - n ? n - (Integer.MAX_VALUE - sequence) - 1 : sequence + n;
    }
}
