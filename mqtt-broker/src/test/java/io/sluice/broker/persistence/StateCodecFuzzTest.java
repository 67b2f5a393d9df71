package io.sluice.broker.persistence;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.session.SessionSnapshot;

import java.util.Arrays;

/**
 * Fuzzes the broker-state decoders (docs/reliability.md). The first input byte picks the record
 * kind (message, session, delivery), the rest is the record. Contract: a record either decodes or
 * is refused with {@link CorruptStateException}, which the loader counts and skips; anything
 * else escaping would stop the broker's start. What decodes must encode to bytes that decode to
 * the same thing again, so a record the broker rewrites never turns into one it cannot read.
 */
class StateCodecFuzzTest {

    @FuzzTest(maxDuration = "5m")
    void decodesOrRefuses(byte[] data) {
        if (data.length == 0) {
            return;
        }
        byte[] record = Arrays.copyOfRange(data, 1, data.length);
        try {
            switch (data[0] & 3) {
                case 0 -> messageRoundTrip(record);
                case 1 -> sessionRoundTrip(record);
                default -> deliveryRoundTrip(record);
            }
        } catch (CorruptStateException expected) {
            // counted and skipped by the loader
        }
    }

    private static void messageRoundTrip(byte[] record) {
        Message message = StateCodec.message(record);
        byte[] encoded = StateCodec.message(message);
        assertArrayEquals(encoded, StateCodec.message(StateCodec.message(encoded)), "message re-encoding");
    }

    private static void sessionRoundTrip(byte[] record) {
        SessionSnapshot session = StateCodec.session("fuzz", record);
        byte[] encoded = StateCodec.session(session);
        assertArrayEquals(encoded, StateCodec.session(StateCodec.session("fuzz", encoded)), "session re-encoding");
    }

    private static void deliveryRoundTrip(byte[] record) {
        StateCodec.DeliveryRecord delivery = StateCodec.delivery(record);
        // A delivery record points at its message by id; any message will do for the round trip.
        Message message = new Message("t", new byte[0], delivery.qos(), delivery.retain(),
                MessageProperties.NONE, null, 0);
        byte[] encoded = StateCodec.delivery(delivery.resolve(1, message), delivery.messageId());
        assertArrayEquals(encoded, StateCodec.delivery(StateCodec.delivery(encoded).resolve(1, message),
                delivery.messageId()), "delivery re-encoding");
    }
}
