package io.sluice.stream;

/**
 * A query command that cannot be served as written. The query channel answers it with one frame
 * {@code ERR <code> <reason>}: the code is one of the stable tokens below (plugins may add their
 * own, upper case, no spaces), the reason is text that the frame escapes to ASCII.
 */
public final class CommandException extends Exception {

    /** Empty, too long, or not of the form {@code <verb>-<start>-<end>[-<columns>]}. */
    public static final String BAD_COMMAND = "BAD_COMMAND";
    /** A verb other than {@code sync} or {@code async}. */
    public static final String BAD_VERB = "BAD_VERB";
    /** A key that is not a non-negative decimal number of at most 19 digits that fits in 63 bits. */
    public static final String BAD_KEY = "BAD_KEY";
    /** {@code end < start}. */
    public static final String BAD_RANGE = "BAD_RANGE";
    /** A column list the plugin does not understand. */
    public static final String BAD_COLUMNS = "BAD_COLUMNS";

    private final String code;
    private final String reason;

    public CommandException(String code, String reason) {
        super(code + " " + reason);
        if (code == null || code.isEmpty() || !code.chars().allMatch(c -> (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9'))) {
            throw new IllegalArgumentException("error code must be upper-case ASCII letters, digits or '_', was " + code);
        }
        this.code = code;
        this.reason = reason;
    }

    /** The stable error token, e.g. {@link #BAD_RANGE}. */
    public String code() {
        return code;
    }

    /** What is wrong, as text (it may quote the command). */
    public String reason() {
        return reason;
    }
}
