package io.sluice.examples.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The broker under soak: {@code bin/sluice} as a child process, killed with SIGKILL and started
 * again on request, and sampled for its resident set (VmRSS), Java heap (jstat) and committed memory
 * by kind (Native Memory Tracking).
 */
final class SoakBroker {
    /** "Total: reserved=..KB, committed=..KB" or "-  Java Heap (reserved=..KB, committed=..KB)". */
    private static final Pattern NMT_LINE =
            Pattern.compile("^[-\\s]*([A-Za-z][A-Za-z ]*?):? ?\\(?reserved=\\d+KB, committed=(\\d+)KB");
    private final Path sluice;
    private final Path config;
    private final Path log;
    private final int port;
    private final String javaOpts;
    private Process process;
    private int incarnation;

    SoakBroker(Path sluice, Path config, Path log, int port, String javaOpts) {
        this.sluice = sluice;
        this.config = config;
        this.log = log;
        this.port = port;
        this.javaOpts = javaOpts;
    }

    /** Starts the broker and waits until it accepts connections. */
    synchronized void start() throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(sluice.toString(), "-c", config.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("SLUICE_JAVA_OPTS", javaOpts);
        process = builder.start();
        incarnation++;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!accepts()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IOException("the broker did not start (incarnation " + incarnation + "); see " + log);
            }
            Thread.sleep(100);
        }
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** SIGKILL, as {@code kill -9}: no shutdown hook runs. */
    synchronized void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGTERM, then waits for the clean stop. */
    synchronized void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }

    synchronized long pid() {
        return process.pid();
    }

    synchronized int incarnation() {
        return incarnation;
    }

    synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    /** VmRSS of the broker in KiB, or -1 when it is not running. */
    long rssKib() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid() + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** Used heap in KiB (survivor, eden and old spaces from {@code jstat -gc}), or -1. */
    long heapUsedKib() {
        List<String> lines = run("jstat", "-gc", Long.toString(pid()));
        if (lines.size() < 2) {
            return -1;
        }
        String[] names = lines.get(0).trim().split("\\s+");
        String[] values = lines.get(1).trim().split("\\s+");
        double used = 0;
        for (int i = 0; i < names.length && i < values.length; i++) {
            if (List.of("S0U", "S1U", "EU", "OU").contains(names[i])) {
                used += Double.parseDouble(values[i]);
            }
        }
        return (long) used;
    }

    /** Runs a full GC in the broker ({@code jcmd GC.run}) and returns the heap still used, in KiB. */
    long liveHeapKib() {
        run("jcmd", Long.toString(pid()), "GC.run");
        return heapUsedKib();
    }

    /**
     * Committed memory in KiB per Native Memory Tracking category ("Total", "Java Heap", "Class",
     * "Thread", "Code", "GC", "Other", ...), empty when the broker runs without
     * {@code -XX:NativeMemoryTracking=summary}.
     */
    Map<String, Long> committedKib() {
        Map<String, Long> committed = new LinkedHashMap<>();
        for (String line : run("jcmd", Long.toString(pid()), "VM.native_memory", "summary", "scale=KB")) {
            Matcher m = NMT_LINE.matcher(line);
            if (m.find()) {
                committed.put(m.group(1).trim(), Long.parseLong(m.group(2)));
            }
        }
        return committed;
    }

    private static List<String> run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            List<String> lines = new String(p.getInputStream().readAllBytes()).lines().toList();
            p.waitFor(30, TimeUnit.SECONDS);
            return p.exitValue() == 0 ? lines : List.of();
        } catch (IOException | IllegalThreadStateException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }
}
