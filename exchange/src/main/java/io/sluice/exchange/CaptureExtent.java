package io.sluice.exchange;

/**
 * What an exchange holds, for status readers (the HTTP API): the key range of its files and of
 * the batches waiting for the writer, and the disk its write-ahead log takes.
 *
 * @param oldestTs the smallest {@code ts} held, or -1 when nothing is held yet
 * @param newestTs the largest {@code ts} in files and handed-up batches, or -1; the batch the ring
 *                 is filling (at most {@code flush_interval} old) is not counted
 * @param walBytes bytes of the write-ahead log's files, 0 with {@code durability = none}
 */
public record CaptureExtent(long oldestTs, long newestTs, long walBytes) {
}
