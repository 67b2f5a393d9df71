package io.sluice.storage.segment;

import java.nio.channels.FileChannel;

import io.sluice.testing.FaultyFileChannel;

/**
 * Installs {@link FaultyFileChannel}s through the segment engine's channel seam
 * ({@link SegmentChannels}) for every segment opened until {@link #close}; public, and shipped in
 * this module's test jar, so that exchange and server tests can fail a log's writes and fsyncs too.
 * One at a time: the seam is global.
 */
public final class SegmentFaults implements AutoCloseable {
    private final FaultyFileChannel.Faults faults = new FaultyFileChannel.Faults();

    private SegmentFaults() {
    }

    /** From now on every segment file opens as a faulty channel, faults off. */
    public static SegmentFaults install() {
        SegmentFaults installed = new SegmentFaults();
        SegmentChannels.opener = (file, options) -> new FaultyFileChannel(FileChannel.open(file, options), installed.faults);
        return installed;
    }

    /** The switches: writes fail as on a full disk, fsyncs fail as on a broken one. */
    public FaultyFileChannel.Faults faults() {
        return faults;
    }

    /** Segments opened from now on get the JDK's channels again. */
    @Override
    public void close() {
        SegmentChannels.opener = SegmentChannels.SYSTEM;
    }
}
