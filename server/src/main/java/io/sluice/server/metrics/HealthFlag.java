package io.sluice.server.metrics;

import java.util.List;

/**
 * A part's health flag as {@code $SYS} and Prometheus show it, the same for every part (an exchange,
 * the broker state): {@code ok} or its problems, and 1 or 0.
 */
final class HealthFlag {

    private HealthFlag() {
    }

    /** {@code ok}, or the problems joined by "; ". */
    static String sysValue(List<String> problems) {
        return problems.isEmpty() ? "ok" : String.join("; ", problems);
    }

    /** 1 while there is no problem, else 0. */
    static double gaugeValue(List<String> problems) {
        return problems.isEmpty() ? 1 : 0;
    }
}
