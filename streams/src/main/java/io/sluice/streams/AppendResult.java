package io.sluice.streams;

/**
 * The outcome of appending one batch to a stream partition.
 *
 * @param status     what happened
 * @param baseOffset the offset of the batch's first record: where it was appended, or for a
 *                   {@link Status#DUPLICATE} where it was appended the first time; -1 otherwise
 * @param error      for {@link Status#FAILED}, the cause; else null
 */
public record AppendResult(Status status, long baseOffset, RuntimeException error) {

    /** What happened to a batch. */
    public enum Status {
        /** Appended and durable under the stream's flush policy. */
        APPENDED,
        /** Its producer sequence numbers were appended before: nothing new was written. */
        DUPLICATE,
        /** Its first sequence number does not follow the producer's last one. */
        OUT_OF_ORDER_SEQUENCE,
        /** Its producer epoch is older than one already seen: a newer instance of the producer exists. */
        INVALID_PRODUCER_EPOCH,
        /** The storage refused the write (the error says why); nothing is acknowledged. */
        FAILED
    }

    public static AppendResult appended(long baseOffset) {
        return new AppendResult(Status.APPENDED, baseOffset, null);
    }

    public static AppendResult duplicate(long baseOffset) {
        return new AppendResult(Status.DUPLICATE, baseOffset, null);
    }

    public static AppendResult refused(Status status) {
        return new AppendResult(status, -1, null);
    }

    public static AppendResult failed(RuntimeException error) {
        return new AppendResult(Status.FAILED, -1, error);
    }
}
