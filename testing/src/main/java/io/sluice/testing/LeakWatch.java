package io.sluice.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Turns Netty's leak reports into test failures: every leak detector created after
 * {@link #install()} reports to a list that {@link #assertNoLeaks()} checks. Surefire runs the
 * tests with {@code -Dio.netty.leakDetection.level=paranoid}, so every buffer is tracked.
 */
public final class LeakWatch {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static volatile boolean installed;

    private LeakWatch() {
    }

    /** Installs the reporting factory; must run before Netty creates its first buffer. */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                      long maxActive) {
                ResourceLeakDetector<T> detector = new ResourceLeakDetector<>(resource, samplingInterval, maxActive);
                detector.setLeakListener((type, records) -> LEAKS.add(type + ": " + records));
                return detector;
            }
        });
    }

    /** Collects garbage, makes the detectors look at what was collected, and fails on any leak seen so far. */
    public static void assertNoLeaks() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            // Leaks are reported when a detector next tracks an object; allocate to make that happen.
            for (int j = 0; j < 64; j++) {
                ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                buf.release();
            }
        }
        assertEquals(List.of(), LEAKS, "Netty reported leaked buffers");
    }
}
