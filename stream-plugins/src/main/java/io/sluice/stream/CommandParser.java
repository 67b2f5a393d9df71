package io.sluice.stream;

/**
 * Parses the part of a query command every plugin shares: {@code <verb>-<start>-<end>} with an
 * optional {@code -<columns>} whose meaning the plugin defines. The verb is {@code sync} or
 * {@code async}; keys are decimal epoch milliseconds, both inclusive, {@code end >= start}. A
 * single trailing NUL byte (as C clients send) is ignored.
 */
public final class CommandParser {

    /** Longest command accepted, in characters. */
    public static final int MAX_COMMAND_LENGTH = 4096;
    private static final int MAX_KEY_DIGITS = 19;
    private static final int SHOWN = 64;

    private CommandParser() {
    }

    /**
     * The shared parts of a command.
     *
     * @param sync    true for {@code sync}
     * @param start   first key, inclusive
     * @param end     last key, inclusive
     * @param columns the text after the third {@code -}, or null when the command has none
     */
    public record Parts(boolean sync, long start, long end, String columns) {
    }

    /** Splits and checks a command. */
    public static Parts parse(String command) throws CommandException {
        if (command == null || command.isEmpty()) {
            throw new CommandException(CommandException.BAD_COMMAND, "empty command; expected sync-<start>-<end> or async-<start>-<end>");
        }
        String text = command.endsWith("\0") ? command.substring(0, command.length() - 1) : command;
        if (text.length() > MAX_COMMAND_LENGTH) {
            throw new CommandException(CommandException.BAD_COMMAND, "command of " + text.length()
                    + " characters is longer than " + MAX_COMMAND_LENGTH);
        }
        int firstDash = text.indexOf('-');
        int secondDash = firstDash < 0 ? -1 : text.indexOf('-', firstDash + 1);
        if (secondDash < 0) {
            throw new CommandException(CommandException.BAD_COMMAND, "'" + shown(text)
                    + "' is not of the form <verb>-<start>-<end>[-<columns>]");
        }
        String verb = text.substring(0, firstDash);
        boolean sync;
        if (verb.equals("sync")) {
            sync = true;
        } else if (verb.equals("async")) {
            sync = false;
        } else {
            throw new CommandException(CommandException.BAD_VERB, "unknown verb '" + shown(verb) + "'; expected sync or async");
        }
        int thirdDash = text.indexOf('-', secondDash + 1);
        long start = key("start", text.substring(firstDash + 1, secondDash));
        long end = key("end", thirdDash < 0 ? text.substring(secondDash + 1) : text.substring(secondDash + 1, thirdDash));
        if (end < start) {
            throw new CommandException(CommandException.BAD_RANGE, "end " + end + " is before start " + start);
        }
        String columns = thirdDash < 0 ? null : text.substring(thirdDash + 1);
        if (columns != null && columns.isEmpty()) {
            throw new CommandException(CommandException.BAD_COLUMNS, "empty column list after '-'");
        }
        return new Parts(sync, start, end, columns);
    }

    private static long key(String which, String digits) throws CommandException {
        if (digits.isEmpty() || digits.length() > MAX_KEY_DIGITS) {
            throw new CommandException(CommandException.BAD_KEY, which + " key '" + shown(digits)
                    + "' must be 1 to " + MAX_KEY_DIGITS + " decimal digits");
        }
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                throw new CommandException(CommandException.BAD_KEY, which + " key '" + shown(digits)
                        + "' is not a decimal number (character '" + c + "' at index " + i + ")");
            }
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new CommandException(CommandException.BAD_KEY, which + " key " + digits + " is larger than " + Long.MAX_VALUE);
        }
    }

    private static String shown(String text) {
        return text.length() <= SHOWN ? text : text.substring(0, SHOWN) + "...";
    }
}
