package io.sluice.streams;

/**
 * A configured stream that does not fit what is on disk (fewer partitions than it has, another
 * engine), found when the streams are opened. Names the stream and the setting, so that the
 * configuration error can give the key path.
 */
public final class InvalidStreamException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String stream;
    private final String key;

    public InvalidStreamException(String stream, String key, String reason) {
        super(reason);
        this.stream = stream;
        this.key = key;
    }

    /** The stream's name. */
    public String stream() {
        return stream;
    }

    /** The setting at fault, e.g. {@code partitions}. */
    public String key() {
        return key;
    }
}
