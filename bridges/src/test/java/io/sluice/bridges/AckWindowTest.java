package io.sluice.bridges;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AckWindowTest {

    @Test
    void theBaseMovesOnlyOverAContiguousAcknowledgedPrefix() {
        AckWindow window = new AckWindow();
        window.reset(10);
        for (long o = 10; o < 15; o++) {
            window.sent(o);
        }
        assertEquals(15, window.room(20));
        assertTrue(window.acknowledge(12));
        assertTrue(window.acknowledge(11));
        assertEquals(10, window.base(), "10 is still pending");
        assertTrue(window.acknowledge(10));
        assertEquals(13, window.base());
        assertFalse(window.acknowledge(10), "twice is ignored");
        assertFalse(window.acknowledge(99), "never sent is ignored");
        assertEquals(2, window.pending());
    }

    @Test
    void droppedMessagesLeaveTheWindow() {
        AckWindow window = new AckWindow();
        window.reset(0);
        for (long o = 0; o < 5; o++) {
            window.sent(o);
        }
        window.skipTo(3);
        assertEquals(3, window.base());
        assertEquals(2, window.pending());
        window.skipTo(8);
        assertEquals(8, window.next(), "sending resumes after the dropped ones");
        assertEquals(0, window.pending());
    }
}
