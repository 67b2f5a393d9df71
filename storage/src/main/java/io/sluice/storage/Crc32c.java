package io.sluice.storage;

/**
 * CRC-32C of a concatenation from the CRCs of its parts (zlib's {@code crc32_combine}, for the
 * Castagnoli polynomial): a batch's checksum is checked part by part, and a Kafka batch's checksum
 * is made from the checksum of records already checked, without reading them again. Multiplication
 * is in GF(2) modulo the reflected polynomial; a few hundred operations per call.
 */
public final class Crc32c {
    /** The Castagnoli polynomial, reflected. */
    private static final int POLY = 0x82F63B78;
    /** x^(2^n) modulo the polynomial, n = 0..31. */
    private static final int[] X2N = new int[32];

    static {
        int p = 1 << 30; // x^1
        X2N[0] = p;
        for (int n = 1; n < 32; n++) {
            p = multiply(p, p);
            X2N[n] = p;
        }
    }

    private Crc32c() {
    }

    /** The CRC-32C of A followed by B, from the CRC-32C of A, that of B, and B's length in bytes. */
    public static int combine(int crcA, int crcB, long lengthB) {
        return multiply(xToThe8n(lengthB), crcA) ^ crcB;
    }

    /** x^(8 n) modulo the polynomial: the shift that {@code n} more bytes apply. */
    private static int xToThe8n(long n) {
        int p = 1 << 31; // x^0
        int k = 3;
        while (n != 0) {
            if ((n & 1) != 0) {
                p = multiply(X2N[k & 31], p);
            }
            n >>>= 1;
            k++;
        }
        return p;
    }

    private static int multiply(int a, int b) {
        int m = 1 << 31;
        int p = 0;
        while (true) {
            if ((a & m) != 0) {
                p ^= b;
                if ((a & (m - 1)) == 0) {
                    return p;
                }
            }
            m >>>= 1;
            b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
        }
    }
}
