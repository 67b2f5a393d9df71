package io.sluice.query.cli;

import io.sluice.query.client.ExchangeConsumer;
import io.sluice.query.client.Query;
import io.sluice.query.client.QueryError;
import io.sluice.query.client.QueryException;
import io.sluice.query.client.QueryTimeoutException;
import io.sluice.query.client.Record;
import io.sluice.query.client.internal.RawLayout;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code bin/exchange-consumer}: sends one command to an exchange's query channel and prints the
 * reply, like NanoMQ's {@code exchange_consumer}.
 *
 * <pre>
 * exchange-consumer [--url tcp://127.0.0.1:10000] [--timeout S] [--out FILE] [--records] "sync-&lt;start&gt;-&lt;end&gt;"
 * </pre>
 *
 * By default it prints {@code Received <n> bytes} per data frame; {@code --records} prints each
 * RAW record instead ({@code ts=... data="text"} or {@code data=0x...} when the payload is not
 * printable UTF-8); {@code --out} also writes the data frames, back to back, to a file. Exit
 * status: {@value #OK} after EOF, {@value #ERR_REPLY} on an ERR reply, {@value #USAGE} on bad
 * arguments, {@value #TIMEOUT} when the server went silent or sent a broken reply,
 * {@value #NO_SERVER} when nothing accepts a connection at the URL, {@value #OUTPUT_FAILED} when
 * the output file cannot be written.
 */
public final class ExchangeConsumerMain {

    static final int OK = 0;
    static final int ERR_REPLY = 1;
    static final int USAGE = 2;
    static final int TIMEOUT = 3;
    static final int NO_SERVER = 4;
    static final int OUTPUT_FAILED = 5;

    private static final String USAGE_TEXT = "usage: exchange-consumer [--url tcp://127.0.0.1:10000] [--timeout S] [--out FILE] [--records]"
            + " \"sync-<start>-<end>[-<columns>]\"";

    private ExchangeConsumerMain() {
    }

    /** The parsed command line. */
    record Options(String url, Duration timeout, Path out, boolean records, String command) {
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false, StandardCharsets.UTF_8);
        int status = run(args, out, System.err);
        out.flush();
        System.exit(status);
    }

    /** Runs the tool; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            err.println("exchange-consumer: " + e.getMessage());
            err.println(USAGE_TEXT);
            return USAGE;
        }
        if (options == null) {
            out.println(USAGE_TEXT);
            return OK;
        }
        try (ExchangeConsumer consumer = ExchangeConsumer.builder().url(options.url()).timeout(options.timeout()).connect();
             OutputStream file = options.out() == null ? null : Files.newOutputStream(options.out());
             Query query = consumer.query(options.command())) {
            RawLayout layout = options.records() ? RawLayout.of(options.command()) : null;
            long index = 0;
            for (byte[] frame = query.nextFrame(); frame != null; frame = query.nextFrame(), index++) {
                if (file != null) {
                    file.write(frame);
                }
                if (layout == null) {
                    out.println("Received " + frame.length + " bytes");
                } else {
                    printRecords(out, layout, frame, index);
                }
            }
            return OK;
        } catch (QueryError e) {
            out.flush();
            err.println("exchange-consumer: the server refused '" + options.command() + "': " + e.getMessage());
            return ERR_REPLY;
        } catch (QueryTimeoutException e) {
            out.flush();
            err.println("exchange-consumer: " + e.getMessage());
            return e.connected() ? TIMEOUT : NO_SERVER;
        } catch (QueryException e) {
            out.flush();
            err.println("exchange-consumer: " + e.getMessage());
            return TIMEOUT;
        } catch (IllegalArgumentException e) {
            err.println("exchange-consumer: " + e.getMessage());
            return USAGE;
        } catch (IOException e) {
            out.flush();
            err.println("exchange-consumer: cannot write " + options.out() + ": " + e.getMessage());
            return OUTPUT_FAILED;
        }
    }

    /** The options, or null when help was asked for. */
    static Options parse(String[] args) {
        String url = ExchangeConsumer.DEFAULT_URL;
        Duration timeout = ExchangeConsumer.DEFAULT_TIMEOUT;
        Path out = null;
        boolean records = false;
        String command = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "-h", "--help" -> {
                    return null;
                }
                case "--url" -> url = value(args, ++i, arg);
                case "--timeout" -> timeout = seconds(value(args, ++i, arg));
                case "--out" -> out = Path.of(value(args, ++i, arg));
                case "--records" -> records = true;
                default -> {
                    if (arg.startsWith("--")) {
                        throw new IllegalArgumentException("unknown option " + arg);
                    }
                    if (command != null) {
                        throw new IllegalArgumentException("one command only; got '" + command + "' and '" + arg + "'");
                    }
                    command = arg;
                }
            }
        }
        if (command == null) {
            throw new IllegalArgumentException("missing the command, e.g. \"sync-0-9223372036854775807\"");
        }
        return new Options(url, timeout, out, records, command);
    }

    private static String value(String[] args, int at, String option) {
        if (at >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[at];
    }

    private static Duration seconds(String text) {
        double seconds;
        try {
            seconds = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--timeout takes seconds, e.g. 5 or 0.5; was '" + text + "'");
        }
        if (!(seconds >= 0.001 && seconds <= 86_400)) {
            throw new IllegalArgumentException("--timeout must be 0.001 to 86400 seconds, was " + text);
        }
        return Duration.ofNanos((long) (seconds * 1e9));
    }

    private static void printRecords(PrintStream out, RawLayout layout, byte[] frame, long index) {
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        StringBuilder line = new StringBuilder();
        while (buffer.hasRemaining()) {
            Record record = layout.read(buffer, index);
            line.setLength(0);
            if (record.ts() >= 0) {
                line.append("ts=").append(record.ts());
            }
            if (record.offset() >= 0) {
                appendSeparator(line).append("offset=").append(record.offset());
            }
            if (record.topic() != null) {
                appendQuoted(appendSeparator(line).append("topic="), record.topic());
            }
            if (record.data() != null) {
                appendPayload(appendSeparator(line).append("data="), record.data());
            }
            out.println(line);
        }
    }

    private static StringBuilder appendSeparator(StringBuilder line) {
        return line.length() == 0 ? line : line.append(' ');
    }

    /** The payload as quoted text when it is printable UTF-8, else as {@code 0x} and hex digits. */
    static StringBuilder appendPayload(StringBuilder line, byte[] data) {
        String text = printableText(data);
        if (text != null) {
            return appendQuoted(line, text);
        }
        line.append("0x");
        for (byte b : data) {
            line.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return line;
    }

    private static String printableText(byte[] data) {
        CharBuffer chars;
        try {
            chars = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(data));
        } catch (CharacterCodingException e) {
            return null;
        }
        String text = chars.toString();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) && c != '\t' && c != '\n' && c != '\r') {
                return null;
            }
        }
        return text;
    }

    private static StringBuilder appendQuoted(StringBuilder line, String text) {
        line.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> line.append("\\\"");
                case '\\' -> line.append("\\\\");
                case '\n' -> line.append("\\n");
                case '\r' -> line.append("\\r");
                case '\t' -> line.append("\\t");
                default -> line.append(c);
            }
        }
        return line.append('"');
    }
}
