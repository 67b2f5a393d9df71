package io.sluice.storage.segment;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases a memory mapping at once instead of whenever the garbage collector gets to it, so a
 * broker that deletes segments for weeks does not pile up mappings. Only called once no reader can
 * touch the buffer (the segment's last reference is gone); without the JDK hook it does nothing
 * and the collector unmaps later.
 */
final class Unmapper {
    private static final Logger LOG = LoggerFactory.getLogger(Unmapper.class);
    private static final MethodHandle INVOKE_CLEANER = find();

    private Unmapper() {
    }

    private static MethodHandle find() {
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            Field field = unsafeClass.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            Object unsafe = field.get(null);
            return MethodHandles.lookup()
                    .findVirtual(unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
                    .bindTo(unsafe);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.debug("explicit unmapping unavailable, mappings are released by the garbage collector", e);
            return null;
        }
    }

    static void unmap(MappedByteBuffer buffer) {
        if (INVOKE_CLEANER == null || buffer == null) {
            return;
        }
        try {
            INVOKE_CLEANER.invokeExact((ByteBuffer) buffer);
        } catch (Throwable e) {
            LOG.debug("could not unmap a buffer, leaving it to the garbage collector", e);
        }
    }
}
