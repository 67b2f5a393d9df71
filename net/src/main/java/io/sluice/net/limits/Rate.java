package io.sluice.net.limits;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rate limit as the configuration writes it: {@code "20/s"}, {@code "1000/10s"}, {@code "1MB/s"},
 * {@code "500KB/m"}. A bare number means per second ({@code 1000} = {@code "1000/s"}, as EMQX
 * writes {@code max_conn_rate}); {@code "infinity"} or {@code 0} means no limit.
 *
 * @param amount      messages, connections or bytes allowed per period; 0 = unlimited
 * @param periodNanos the period
 */
public record Rate(long amount, long periodNanos) {
    /** No limit. */
    public static final Rate UNLIMITED = new Rate(0, TimeUnit.SECONDS.toNanos(1));

    private static final Pattern FORMAT = Pattern.compile(
            "(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]*)\\s*(?:/\\s*(\\d+(?:\\.\\d+)?)?\\s*(ms|s|m|h|min)?)?");

    public Rate {
        if (amount < 0) {
            throw new IllegalArgumentException("a rate must not be negative, got " + amount);
        }
        if (periodNanos <= 0) {
            throw new IllegalArgumentException("a rate's period must be positive, got " + periodNanos + " ns");
        }
    }

    /** {@code amount} per second. */
    public static Rate perSecond(long amount) {
        return new Rate(amount, TimeUnit.SECONDS.toNanos(1));
    }

    /**
     * Parses {@code text}; {@code sizes} allows byte units ({@code KB}, {@code MB}, {@code GB},
     * 1KB = 1024 bytes). Throws IllegalArgumentException saying what is wrong.
     */
    public static Rate parse(String text, boolean sizes) {
        String trimmed = text.trim();
        if (trimmed.equalsIgnoreCase("infinity")) {
            return UNLIMITED;
        }
        Matcher m = FORMAT.matcher(trimmed);
        if (!m.matches()) {
            throw new IllegalArgumentException("must be a rate such as " + (sizes ? "\"1MB/s\"" : "\"20/s\"")
                    + " or \"infinity\", got '" + text + "'");
        }
        double amount = Double.parseDouble(m.group(1)) * unit(m.group(2), sizes, text);
        double periods = m.group(3) == null ? 1 : Double.parseDouble(m.group(3));
        long unitNanos = switch (m.group(4) == null ? "s" : m.group(4)) {
            case "ms" -> TimeUnit.MILLISECONDS.toNanos(1);
            case "s" -> TimeUnit.SECONDS.toNanos(1);
            case "m", "min" -> TimeUnit.MINUTES.toNanos(1);
            default -> TimeUnit.HOURS.toNanos(1);
        };
        long period = (long) (periods * unitNanos);
        if (period <= 0) {
            throw new IllegalArgumentException("the period of '" + text + "' must be positive");
        }
        return new Rate((long) amount, period);
    }

    private static long unit(String unit, boolean sizes, String text) {
        String u = unit.toUpperCase(Locale.ROOT);
        if (u.isEmpty()) {
            return 1;
        }
        if (!sizes) {
            throw new IllegalArgumentException("a count rate takes no unit, got '" + text + "'");
        }
        return switch (u) {
            case "B" -> 1L;
            case "K", "KB", "KIB" -> 1L << 10;
            case "M", "MB", "MIB" -> 1L << 20;
            case "G", "GB", "GIB" -> 1L << 30;
            default -> throw new IllegalArgumentException("unknown size unit '" + unit + "' in '" + text
                    + "' (use B, KB, MB or GB)");
        };
    }

    public boolean isUnlimited() {
        return amount == 0;
    }

    /** The rate in units per second. */
    public double perSecond() {
        return amount * 1e9 / periodNanos;
    }

    @Override
    public String toString() {
        if (isUnlimited()) {
            return "infinity";
        }
        return amount + "/" + (periodNanos % 1_000_000_000L == 0 ? (periodNanos / 1_000_000_000L) + "s"
                : (periodNanos / 1_000_000L) + "ms");
    }
}
