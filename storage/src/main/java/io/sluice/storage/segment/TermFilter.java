package io.sluice.storage.segment;

/**
 * An in-memory blocked Bloom filter over the term hashes of one sealed segment, so a lookup skips
 * the segments that cannot hold its key or tag instead of binary-searching each one's file.
 *
 * <p>{@value #BITS_PER_TERM} bits per distinct term (1.25 MB per million distinct keys and tags),
 * split into 512-bit blocks, one CPU cache line each: a term sets {@value #PROBES} bits in the one
 * block its hash picks, so a test touches one cache line and allocates nothing. False-positive
 * rate about 1 %, never a false negative. The input is {@link SegmentTermIndex#hash}, already
 * well mixed, so no further hashing is needed beyond re-mixing the bits that pick the probes.
 */
final class TermFilter {
    static final int BITS_PER_TERM = 10;
    private static final int PROBES = 7;
    private static final int BLOCK_BITS = 512;
    private static final int BLOCK_LONGS = BLOCK_BITS / Long.SIZE;

    private final long[] words;
    private final long blocks;

    /** An empty filter sized for {@code distinctTerms} terms. */
    TermFilter(int distinctTerms) {
        long blockCount = Math.max(1, ((long) distinctTerms * BITS_PER_TERM + BLOCK_BITS - 1) / BLOCK_BITS);
        this.blocks = blockCount;
        this.words = new long[Math.toIntExact(blockCount * BLOCK_LONGS)];
    }

    void add(long hash) {
        int block = block(hash);
        long probes = probes(hash);
        for (int i = 0; i < PROBES; i++, probes >>>= 9) {
            int bit = (int) probes & (BLOCK_BITS - 1);
            words[block + (bit >>> 6)] |= 1L << bit;
        }
    }

    /** False when no term with this hash was added; true when one was, or (about 1 % of the time) by chance. */
    boolean mightContain(long hash) {
        int block = block(hash);
        long probes = probes(hash);
        for (int i = 0; i < PROBES; i++, probes >>>= 9) {
            int bit = (int) probes & (BLOCK_BITS - 1);
            if ((words[block + (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /** Bytes of heap the bit array takes. */
    long sizeBytes() {
        return (long) words.length * Long.BYTES;
    }

    /** The first word of the block picked by the hash's high 32 bits (multiply-shift, no modulo). */
    private int block(long hash) {
        return (int) (((hash >>> 32) * blocks) >>> 32) * BLOCK_LONGS;
    }

    /** Seven 9-bit bit positions, from a re-mix of the whole hash so they do not follow the block. */
    private static long probes(long hash) {
        long x = hash * 0x9E3779B97F4A7C15L;
        return x ^ (x >>> 31);
    }
}
