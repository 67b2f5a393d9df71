package io.sluice.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** A logger that keeps every line it is given, every level enabled, for tests that assert what was logged. Thread-safe. */
public final class CapturedLog extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    /** One logged line: its level, its text with the arguments filled in, and its throwable or null. */
    public record Line(Level level, String message, Throwable cause) {
    }

    private final transient List<Line> lines = new CopyOnWriteArrayList<>();

    public CapturedLog(String name) {
        this.name = name;
    }

    /** The lines logged so far, oldest first. */
    public List<Line> lines() {
        return List.copyOf(lines);
    }

    /** The texts of the lines logged so far, oldest first. */
    public List<String> messages() {
        return lines.stream().map(Line::message).toList();
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern, Object[] arguments,
                                               Throwable throwable) {
        lines.add(new Line(level, MessageFormatter.basicArrayFormat(messagePattern, arguments), throwable));
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    public boolean isTraceEnabled() {
        return true;
    }

    @Override
    public boolean isDebugEnabled() {
        return true;
    }

    @Override
    public boolean isInfoEnabled() {
        return true;
    }

    @Override
    public boolean isWarnEnabled() {
        return true;
    }

    @Override
    public boolean isErrorEnabled() {
        return true;
    }
}
