package io.sluice.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time a process has used, from {@code /proc/<pid>/stat} (user + system), in seconds. */
final class BrokerCpu {
    /** USER_HZ on Linux x86-64; the kernel reports utime and stime in these ticks. */
    private static final double TICKS_PER_SECOND = 100.0;

    private final long pid;

    BrokerCpu(long pid) {
        this.pid = pid;
    }

    double seconds() {
        if (pid <= 0) {
            return Double.NaN;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name may contain spaces; fields are counted after its closing parenthesis.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long utime = Long.parseLong(fields[11]);
            long stime = Long.parseLong(fields[12]);
            return (utime + stime) / TICKS_PER_SECOND;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the CPU time of process " + pid, e);
        }
    }
}
