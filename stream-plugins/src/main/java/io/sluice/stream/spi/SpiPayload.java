package io.sluice.stream.spi;

import static io.sluice.stream.spi.SpiFrameDescriptor.HEADER_LENGTH;
import static io.sluice.stream.spi.SpiFrameDescriptor.MAGIC;

/**
 * Checks that a payload is valid SPI: frames back to back from the first byte to the last (see
 * {@link SpiFrameDescriptor}), each starting with the magic byte and complete, no bytes left
 * over, and at most {@link SpiRowDescriptor#MAX_ROW_LENGTH} bytes in all so that its signals
 * always fit one decoded row. An empty payload is valid and holds no signal. Stateless.
 */
final class SpiPayload {

    /** The longest valid payload; a longer one could not be given back in one decoded row. */
    static final int MAX_LENGTH = SpiRowDescriptor.MAX_ROW_LENGTH;

    private SpiPayload() {
    }

    /** Whether the payload is valid SPI. Allocates nothing. */
    static boolean isValid(byte[] payload) {
        return defectAt(payload) < 0;
    }

    /** The byte position where the payload stops being valid SPI, or -1 when it is valid. */
    static int defectAt(byte[] payload) {
        if (payload.length > MAX_LENGTH) {
            return MAX_LENGTH;
        }
        int at = 0;
        while (at < payload.length) {
            if (payload[at] != MAGIC || payload.length - at < HEADER_LENGTH
                    || payload.length - at < SpiFrameDescriptor.frameLength(payload, at)) {
                return at;
            }
            at += SpiFrameDescriptor.frameLength(payload, at);
        }
        return -1;
    }

    /** What is wrong with an invalid payload, for logs; null when it is valid. */
    static String describeDefect(byte[] payload) {
        int at = defectAt(payload);
        if (at < 0) {
            return null;
        }
        if (payload.length > MAX_LENGTH) {
            return "payload of " + payload.length + " bytes is longer than " + MAX_LENGTH
                    + ", the most one decoded SPI row holds";
        }
        int left = payload.length - at;
        if (payload[at] != MAGIC) {
            return String.format("byte 0x%02X at position %d of %d where a frame must start with 0x55", payload[at] & 0xFF,
                    at, payload.length);
        }
        if (left < HEADER_LENGTH) {
            return left + " trailing byte" + (left == 1 ? "" : "s") + " at position " + at + " of " + payload.length
                    + ", fewer than a " + HEADER_LENGTH + "-byte frame header";
        }
        return String.format("frame of typeid %04x at position %d declares %d payload bytes but only %d follow",
                SpiFrameDescriptor.typeid(payload, at), at, SpiFrameDescriptor.payloadLength(payload, at), left - HEADER_LENGTH);
    }
}
