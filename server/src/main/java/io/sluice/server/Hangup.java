package io.sluice.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * SIGHUP, the Unix way to tell a daemon to re-read its files. Handled through
 * {@code sun.misc.Signal}, looked up reflectively: where it is missing (another JVM) or the
 * signal is taken ({@code -Xrs}) or ignored since the process started ({@code nohup}, which the
 * JVM keeps), registration says so and files are still reloaded when they change. Installing the
 * handler also stops SIGHUP from ending the JVM, which is the default.
 * One process-wide handler calls every registered listener, on the JVM's signal thread.
 */
final class Hangup {
    private static final Logger LOG = LoggerFactory.getLogger(Hangup.class);
    private static final List<Runnable> LISTENERS = new CopyOnWriteArrayList<>();
    private static Boolean installed;

    private Hangup() {
    }

    /** Calls {@code listener} on every SIGHUP; returns false if SIGHUP cannot be handled here. */
    static synchronized boolean register(Runnable listener) {
        if (installed == null) {
            installed = install();
        }
        if (installed) {
            LISTENERS.add(listener);
        }
        return installed;
    }

    static void unregister(Runnable listener) {
        LISTENERS.remove(listener);
    }

    private static boolean install() {
        try {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Object signal = signalClass.getConstructor(String.class).newInstance("HUP");
            InvocationHandler onSignal = (proxy, method, args) -> switch (method.getName()) {
                case "handle" -> {
                    fire();
                    yield null;
                }
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> "sluice SIGHUP handler";
            };
            Object handler = Proxy.newProxyInstance(Hangup.class.getClassLoader(), new Class<?>[] {handlerClass},
                    onSignal);
            Object previous = signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
            if (previous == handlerClass.getField("SIG_IGN").get(null)) {
                // the JVM leaves a signal ignored at start (nohup) ignored, and installs nothing
                LOG.warn("SIGHUP is ignored by this process (started under nohup?), so it cannot reload files; "
                        + "they are still reloaded when they change");
                return false;
            }
            return true;
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            LOG.info("SIGHUP cannot be handled in this JVM ({}); files are reloaded when they change", cause.toString());
            return false;
        }
    }

    private static void fire() {
        LOG.info("SIGHUP: reloading files");
        for (Runnable listener : LISTENERS) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.error("SIGHUP listener failed", e); // the others still run
            }
        }
    }
}
