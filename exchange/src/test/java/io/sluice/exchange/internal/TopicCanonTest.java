package io.sluice.exchange.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class TopicCanonTest {

    @Test
    void equalTopicsShareTheFirstInstance() {
        TopicCanon canon = new TopicCanon();
        String first = new String("plant/line-1/temp");
        String again = new String("plant/line-1/temp");
        assertNotSame(first, again);

        assertSame(first, canon.canonical(first));
        assertSame(first, canon.canonical(again));
    }

    @Test
    void moreTopicsThanSlotsStayCorrect() {
        TopicCanon canon = new TopicCanon();
        for (int i = 0; i < TopicCanon.SLOTS * 4; i++) {
            String topic = "devices/" + i + "/telemetry";
            assertEquals(topic, canon.canonical(topic));
            assertEquals(topic, canon.canonical(new String(topic)));
        }
    }
}
