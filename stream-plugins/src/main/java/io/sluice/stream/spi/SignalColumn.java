package io.sluice.stream.spi;

/**
 * The stored column of one SPI signal: named by its typeid as four lowercase hex digits
 * ({@code 0a2b}), so that any two names differ from each other and from the other SPI columns
 * ({@code ts}, {@code offset}, {@code topic}, {@code raw}). Query commands name signals the same way,
 * concatenated ({@code 00010a2b}); there upper case is accepted too.
 */
final class SignalColumn {

    /** Characters in a typeid's name. */
    static final int NAME_LENGTH = 4;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private SignalColumn() {
    }

    /** The column name of a typeid 0 to 0xFFFF. */
    static String name(int typeid) {
        return new String(new char[] {HEX[(typeid >>> 12) & 0xF], HEX[(typeid >>> 8) & 0xF], HEX[(typeid >>> 4) & 0xF],
                HEX[typeid & 0xF]});
    }

    /** The typeid a stored column name stands for, or -1 when it names no signal. */
    static int typeid(String column) {
        return column.length() == NAME_LENGTH ? hex(column, 0, false) : -1;
    }

    /**
     * The typeid written at {@code text[from, from + 4)}, or -1 when those are not four hex
     * digits (lower case only, unless {@code anyCase}).
     */
    static int hex(CharSequence text, int from, boolean anyCase) {
        int value = 0;
        for (int i = from; i < from + NAME_LENGTH; i++) {
            int digit = digit(text.charAt(i), anyCase);
            if (digit < 0) {
                return -1;
            }
            value = (value << 4) | digit;
        }
        return value;
    }

    private static int digit(char c, boolean anyCase) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (anyCase && c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
