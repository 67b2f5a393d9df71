package io.sluice.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Busy and stolen time of each core, from {@code /proc/stat}: what else ran on the broker's core during
 * a measurement (its busy time beyond the broker's own CPU time), and how much the hypervisor took.
 */
final class CoreTimes {
    /** USER_HZ, the unit of {@code /proc/stat}. */
    private static final double TICKS_PER_SECOND = 100.0;

    private final long[] busy;
    private final long[] steal;

    private CoreTimes(long[] busy, long[] steal) {
        this.busy = busy;
        this.steal = steal;
    }

    /** Now; empty where {@code /proc/stat} cannot be read (not Linux). */
    static CoreTimes now() {
        try {
            String[] cores = Files.readAllLines(Path.of("/proc/stat")).stream()
                    .filter(line -> line.matches("cpu\\d+ .*")).toArray(String[]::new);
            long[] busy = new long[cores.length];
            long[] steal = new long[cores.length];
            for (int i = 0; i < cores.length; i++) {
                // cpuN user nice system idle iowait irq softirq steal ...
                String[] f = cores[i].trim().split("\\s+");
                busy[i] = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3])
                        + Long.parseLong(f[6]) + Long.parseLong(f[7]);
                steal[i] = Long.parseLong(f[8]);
            }
            return new CoreTimes(busy, steal);
        } catch (IOException | RuntimeException e) {
            return new CoreTimes(new long[0], new long[0]);
        }
    }

    /**
     * Each core's busy share from {@code start} to this snapshot over {@code seconds}, and its stolen
     * share where any; for core {@code brokerCore}, also what was not the broker's ({@code brokerCpuSeconds}).
     */
    String since(CoreTimes start, double seconds, int brokerCore, double brokerCpuSeconds) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(busy.length, start.busy.length); i++) {
            double busyShare = (busy[i] - start.busy[i]) / TICKS_PER_SECOND / seconds;
            double stealShare = (steal[i] - start.steal[i]) / TICKS_PER_SECOND / seconds;
            out.append(String.format(Locale.ROOT, "%score %d busy %.0f%%", i == 0 ? "" : ", ", i, 100 * busyShare));
            if (i == brokerCore && !Double.isNaN(brokerCpuSeconds)) {
                out.append(String.format(Locale.ROOT, " (not the broker: %.0f%%)",
                        100 * Math.max(0, busyShare - brokerCpuSeconds / seconds)));
            }
            if (stealShare >= 0.005) {
                out.append(String.format(Locale.ROOT, " steal %.0f%%", 100 * stealShare));
            }
        }
        return out.toString();
    }
}
