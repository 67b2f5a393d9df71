package io.sluice.stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class PayloadWarningsTest {

    @Test
    void theFirstOccurrenceIsLoggedAndLaterOnesWaitForTheInterval() {
        PayloadWarnings warnings = new PayloadWarnings(LoggerFactory.getLogger(PayloadWarningsTest.class), "ex", "test problems",
                Duration.ofHours(1));
        assertFalse(warnings.note(0), "nothing happened");
        assertTrue(warnings.note(3), "the first occurrence is logged");
        warnings.log("first detail");
        assertFalse(warnings.note(1), "within the interval");
        assertFalse(warnings.note(5), "within the interval");
    }

    @Test
    void withoutAnIntervalEveryNoteIsDue() {
        PayloadWarnings warnings = new PayloadWarnings(LoggerFactory.getLogger(PayloadWarningsTest.class), "ex", "test problems",
                Duration.ZERO);
        assertTrue(warnings.note(1));
        warnings.log("one");
        assertTrue(warnings.note(2));
        warnings.log("two");
    }
}
