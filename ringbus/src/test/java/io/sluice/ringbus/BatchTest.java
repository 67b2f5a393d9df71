package io.sluice.ringbus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class BatchTest {

    @Test
    void readersSeeCompleteRowsWhileTheBatchGrows() throws InterruptedException {
        int rows = 200_000;
        Batch batch = new Batch(16, rows, Long.MAX_VALUE);
        AtomicReference<String> problem = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            int seen = 0;
            while (seen < rows && problem.get() == null) {
                Batch.Contents contents = batch.contents();
                for (int i = Math.max(0, contents.size() - 64); i < contents.size(); i++) {
                    if (contents.offsets()[i] != i || contents.ts()[i] != 1000 + i || contents.payloads()[i] == null
                            || contents.payloads()[i].length != i % 7) {
                        problem.set("row " + i + " of a " + contents.size() + "-row view is incomplete");
                    }
                }
                seen = contents.size();
            }
        });
        reader.start();
        for (int i = 0; i < rows; i++) {
            batch.append(1000 + i, i, "t", new byte[i % 7], 0);
        }
        reader.join();
        assertEquals(null, problem.get());
    }

    @Test
    void fullAndSealedBatchesRefuseRows() {
        Batch batch = new Batch(1, 2, 1000);
        batch.append(1, 1, "t", new byte[1], 0);
        batch.append(2, 2, "t", new byte[1], 0);
        assertTrue(batch.isFull());
        assertThrows(IllegalStateException.class, () -> batch.append(3, 3, "t", new byte[1], 0));
        Batch sealed = new Batch(4, 4, 1000);
        sealed.seal();
        assertThrows(IllegalStateException.class, () -> sealed.append(1, 1, "t", new byte[1], 0));
    }

    @Test
    void rangeFindsRowsByTsInclusive() {
        Batch batch = new Batch(8, 8, 1000);
        long[] ts = {10, 10, 11, 13, 13, 13, 20};
        for (int i = 0; i < ts.length; i++) {
            batch.append(ts[i], i, "t", new byte[0], 0);
        }
        Batch.Contents contents = batch.contents();
        assertArrayEquals(new int[] {0, 2}, contents.range(0, 10));
        assertArrayEquals(new int[] {2, 6}, contents.range(11, 19));
        assertArrayEquals(new int[] {6, 7}, contents.range(20, Long.MAX_VALUE));
        assertArrayEquals(new int[] {7, 7}, contents.range(21, 30));
        assertArrayEquals(new int[] {3, 3}, contents.range(12, 12));
    }
}
