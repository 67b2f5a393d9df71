package io.sluice.parquet;

import io.sluice.settings.InvalidSettingException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The naming rule of one exchange's files in its directory.
 *
 * <pre>
 *   published:  &lt;prefix&gt;_&lt;exchange&gt;-&lt;minTs&gt;~&lt;maxTs&gt;_&lt;seq&gt;.parquet   sluice_mq1-1700000000000~1700000004999_42.parquet
 *   writing:    .&lt;prefix&gt;_&lt;exchange&gt;_&lt;seq&gt;.parquet.tmp             .sluice_mq1_42.parquet.tmp
 *   its journal: .&lt;prefix&gt;_&lt;exchange&gt;_&lt;seq&gt;.parquet.journal       .sluice_mq1_42.parquet.journal
 * </pre>
 *
 * With an empty prefix the leading {@code <prefix>_} is left out, so no name starts with
 * {@code _}, which Hadoop and Spark treat as hidden. {@code minTs} and {@code maxTs} are the
 * smallest and largest ts in the file (epoch ms), so a range scan skips files by name alone;
 * {@code seq} counts the exchange's files from 0 in the order they were written, which is key
 * order. A file being written has a leading dot and a {@code .tmp} suffix: readers and globs such
 * as {@code *.parquet} never see it, and one found at start-up is a crash leftover. Its row-group
 * journal (see {@code RowGroupJournal}), when kept, is hidden the same way.
 */
public final class FileName {

    private final String stem;
    private final Pattern published;
    private final Pattern temporary;
    private final Pattern journal;

    /**
     * @throws InvalidSettingException when prefix or exchange name have characters other than
     *                                  letters, digits, {@code . _ -}, or the name is empty or starts with a dot
     */
    public FileName(String prefix, String exchange) {
        checkPart("parquet.file_name_prefix", prefix, true);
        checkPart("name", exchange, false);
        this.stem = prefix.isEmpty() ? exchange : prefix + "_" + exchange;
        this.published = Pattern.compile(Pattern.quote(stem + "-") + "(\\d{1,19})~(\\d{1,19})_(\\d{1,19})\\.parquet");
        this.temporary = Pattern.compile(Pattern.quote("." + stem + "_") + "(\\d{1,19})\\.parquet\\.tmp");
        this.journal = Pattern.compile(Pattern.quote("." + stem + "_") + "(\\d{1,19})\\.parquet\\.journal");
    }

    static void checkPart(String key, String value, boolean mayBeEmpty) {
        if (value.isEmpty()) {
            if (mayBeEmpty) {
                return;
            }
            throw new InvalidSettingException(key, "must not be empty");
        }
        if (value.startsWith(".") || value.startsWith("_")) {
            throw new InvalidSettingException(key, "'" + value + "' must not start with '.' or '_' (hidden files)");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
            if (!ok) {
                throw new InvalidSettingException(key, "'" + value + "' has '" + c + "' at index " + i
                        + "; allowed are letters, digits, '.', '_' and '-'");
            }
        }
    }

    /** The name of a published file. */
    public String published(long minTs, long maxTs, long seq) {
        return stem + "-" + minTs + "~" + maxTs + "_" + seq + ".parquet";
    }

    /** The name of a file being written. */
    public String temporary(long seq) {
        return "." + stem + "_" + seq + ".parquet.tmp";
    }

    /** The name of the row-group journal of a file being written. */
    public String journal(long seq) {
        return "." + stem + "_" + seq + ".parquet.journal";
    }

    /** The parts of a published name of this exchange, or null for any other name. */
    public Parsed parsePublished(String name) {
        Matcher m = published.matcher(name);
        if (!m.matches()) {
            return null;
        }
        try {
            return new Parsed(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Whether the name is a file of this exchange being written (or left by a crash). */
    public boolean isTemporary(String name) {
        return temporary.matcher(name).matches();
    }

    /** The seq of a file being written (or left by a crash), or -1 for any other name. */
    public long temporarySeq(String name) {
        Matcher m = temporary.matcher(name);
        return m.matches() ? Long.parseLong(m.group(1)) : -1;
    }

    /** Whether the name is the row-group journal of a file of this exchange being written. */
    public boolean isJournal(String name) {
        return journal.matcher(name).matches();
    }

    /**
     * What a published name says.
     *
     * @param minTs smallest ts in the file
     * @param maxTs largest ts in the file
     * @param seq   the file's sequence number
     */
    public record Parsed(long minTs, long maxTs, long seq) {
    }
}
