package io.sluice.net.auth;

import java.nio.file.Path;

/** A password or ACL file that cannot be used; names the file and, where known, the line. */
public final class InvalidFileException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final int line;

    public InvalidFileException(Path file, int line, String problem) {
        this(file, line, problem, null);
    }

    public InvalidFileException(Path file, int line, String problem, Throwable cause) {
        super(file + (line > 0 ? ":" + line : "") + ": " + problem, cause);
        this.file = file;
        this.line = line;
    }

    public Path file() {
        return file;
    }

    /** The 1-based line of the problem, or 0 if it concerns the whole file. */
    public int line() {
        return line;
    }
}
