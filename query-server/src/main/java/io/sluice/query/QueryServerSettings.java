package io.sluice.query;

import io.sluice.settings.InvalidSettingException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * One exchange's query endpoint: the {@code exchange_url}, {@code limit_frequency} and
 * {@code max_frame_bytes} keys of an {@code exchange_client.<id>} block, plus Sluice's own
 * {@code max_sync_bytes}, {@code send_timeout}, {@code spool_dir} and {@code query_nice}. Invalid values throw
 * {@link InvalidSettingException} with the key relative to the {@code exchange_client.<id>} block
 * ({@code exchange_url}); start-up puts it under that block.
 *
 * @param url            where the PAIR socket binds: {@code tcp://<host>:<port>}; host {@code *} means
 *                       every interface, port {@code *} an ephemeral port (tests)
 * @param limitFrequency the most queries served per 5 s window (NanoMQ's meaning), 0 = unlimited
 * @param maxFrameBytes  the most bytes of one {@code async} data frame (a single record larger than
 *                       this gets a frame of its own), 1 KiB to 256 MiB
 * @param maxSyncBytes   the largest {@code sync} reply; a larger one is refused with
 *                       {@code ERR TOO_LARGE} (use {@code async}), 1 KiB to {@value #MAX_SYNC_BYTES}
 * @param sendTimeout    how long a reply waits for a client that stops reading before it is
 *                       abandoned, 100 ms to 1 h
 * @param spoolDir       where a {@code sync} reply larger than one frame is assembled on disk
 * @param nice           the Linux nice value the query threads run at, 0 (unchanged) to 19 (take only
 *                       CPU that forwarding and capture leave idle)
 */
public record QueryServerSettings(String url, int limitFrequency, int maxFrameBytes, int maxSyncBytes, Duration sendTimeout,
                                  Path spoolDir, int nice) {

    /** The default {@code exchange_url}, NanoMQ's. */
    public static final String DEFAULT_URL = "tcp://127.0.0.1:10000";
    /** The default {@code max_frame_bytes}: 1 MiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 1 << 20;
    /** The default {@code max_sync_bytes}: 256 MiB. */
    public static final int DEFAULT_MAX_SYNC_BYTES = 256 << 20;
    /** The largest {@code max_sync_bytes}: one ZeroMQ frame of JeroMQ is indexed by an int. */
    public static final int MAX_SYNC_BYTES = Integer.MAX_VALUE - 64;
    /** The default {@code send_timeout}. */
    public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(10);
    /** The default {@code query_nice}: queries take only the CPU that forwarding and capture leave. */
    public static final int DEFAULT_NICE = 19;
    /** Smallest {@code max_frame_bytes}. */
    public static final int MIN_FRAME_BYTES = 1024;
    /** Largest {@code max_frame_bytes}. */
    public static final int MAX_FRAME_BYTES = 256 << 20;

    private static final Pattern TCP_URL = Pattern.compile("tcp://(\\*|\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+):(\\*|[0-9]{1,5})");

    public QueryServerSettings {
        checkUrl(url);
        if (limitFrequency < 0) {
            throw new InvalidSettingException("limit_frequency", "must be 0 (unlimited) or more queries per 5 s, was " + limitFrequency);
        }
        if (maxFrameBytes < MIN_FRAME_BYTES || maxFrameBytes > MAX_FRAME_BYTES) {
            throw new InvalidSettingException("max_frame_bytes", "must be " + MIN_FRAME_BYTES + " to " + MAX_FRAME_BYTES
                    + " bytes, was " + maxFrameBytes);
        }
        if (maxSyncBytes < MIN_FRAME_BYTES || maxSyncBytes > MAX_SYNC_BYTES) {
            throw new InvalidSettingException("max_sync_bytes", "must be " + MIN_FRAME_BYTES + " to " + MAX_SYNC_BYTES
                    + " bytes, was " + maxSyncBytes);
        }
        if (sendTimeout == null || sendTimeout.compareTo(Duration.ofMillis(100)) < 0 || sendTimeout.compareTo(Duration.ofHours(1)) > 0) {
            throw new InvalidSettingException("send_timeout", "must be 100 ms to 1 h, was " + sendTimeout);
        }
        if (spoolDir == null) {
            throw new InvalidSettingException("spool_dir", "missing");
        }
        if (nice < 0 || nice > 19) {
            throw new InvalidSettingException("query_nice", "must be 0 (leave the priority) to 19 (lowest), was " + nice);
        }
    }

    private static void checkUrl(String url) {
        if (url == null || !TCP_URL.matcher(url).matches()) {
            throw new InvalidSettingException("exchange_url", "must be tcp://<host>:<port>, e.g. " + DEFAULT_URL + ", was "
                    + (url == null ? "null" : "'" + url + "'"));
        }
        String port = url.substring(url.lastIndexOf(':') + 1);
        if (!port.equals("*")) {
            int number = Integer.parseInt(port);
            if (number < 1 || number > 65535) {
                throw new InvalidSettingException("exchange_url", "port must be 1 to 65535, was " + number + " in '" + url + "'");
            }
        }
    }

    /**
     * Defaults at {@code url}: no rate limit, 1 MiB frames, 256 MiB sync replies, 10 s send timeout,
     * spooling in java.io.tmpdir, nice 19.
     */
    public static QueryServerSettings defaults(String url) {
        return new QueryServerSettings(url, 0, DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_SYNC_BYTES, DEFAULT_SEND_TIMEOUT,
                Path.of(System.getProperty("java.io.tmpdir")), DEFAULT_NICE);
    }

    /** A copy with another {@code exchange_url}. */
    public QueryServerSettings withUrl(String value) {
        return new QueryServerSettings(value, limitFrequency, maxFrameBytes, maxSyncBytes, sendTimeout, spoolDir, nice);
    }

    /** A copy with another {@code limit_frequency}. */
    public QueryServerSettings withLimitFrequency(int value) {
        return new QueryServerSettings(url, value, maxFrameBytes, maxSyncBytes, sendTimeout, spoolDir, nice);
    }

    /** A copy with another {@code max_frame_bytes}. */
    public QueryServerSettings withMaxFrameBytes(int value) {
        return new QueryServerSettings(url, limitFrequency, value, maxSyncBytes, sendTimeout, spoolDir, nice);
    }

    /** A copy with another {@code max_sync_bytes}. */
    public QueryServerSettings withMaxSyncBytes(int value) {
        return new QueryServerSettings(url, limitFrequency, maxFrameBytes, value, sendTimeout, spoolDir, nice);
    }

    /** A copy with another {@code send_timeout}. */
    public QueryServerSettings withSendTimeout(Duration value) {
        return new QueryServerSettings(url, limitFrequency, maxFrameBytes, maxSyncBytes, value, spoolDir, nice);
    }

    /** A copy with another {@code spool_dir}. */
    public QueryServerSettings withSpoolDir(Path value) {
        return new QueryServerSettings(url, limitFrequency, maxFrameBytes, maxSyncBytes, sendTimeout, value, nice);
    }

    /** Whether the port is chosen at bind time ({@code *}). */
    public boolean ephemeralPort() {
        return url.endsWith(":*");
    }

    /** A copy with another {@code query_nice}. */
    public QueryServerSettings withNice(int value) {
        return new QueryServerSettings(url, limitFrequency, maxFrameBytes, maxSyncBytes, sendTimeout, spoolDir, value);
    }
}
