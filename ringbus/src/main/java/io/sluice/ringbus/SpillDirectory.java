package io.sluice.ringbus;

import io.sluice.settings.InvalidSettingException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One exchange's directory of {@link SpillFile spill files}. Files are immutable once named, so
 * the methods are safe from any thread: the ring thread writes, the writer reads and deletes,
 * queries read.
 */
public final class SpillDirectory {

    private static final Logger LOG = LoggerFactory.getLogger(SpillDirectory.class);
    /** Suffix given to a spill file that cannot be read, so it is kept for inspection but never read again. */
    public static final String CORRUPT_SUFFIX = ".corrupt";

    private final Path dir;
    private final String exchange;

    private SpillDirectory(Path dir, String exchange) {
        this.dir = dir;
        this.exchange = exchange;
    }

    /**
     * Opens (creating if needed) a spill directory and deletes temporary files a crash left.
     *
     * @throws InvalidSettingException for {@code ringbus.spill_dir} when the directory cannot be created
     */
    public static SpillDirectory open(Path dir, String exchange) throws IOException {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new InvalidSettingException("ringbus.spill_dir", "cannot create directory " + dir + " for exchange "
                    + exchange + ": " + e, e);
        }
        if (!Files.isWritable(dir)) {
            throw new InvalidSettingException("ringbus.spill_dir", "directory " + dir + " of exchange " + exchange + " is not writable");
        }
        SpillDirectory spill = new SpillDirectory(dir, exchange);
        spill.removeTemporaryFiles();
        return spill;
    }

    public Path dir() {
        return dir;
    }

    private void removeTemporaryFiles() throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, ".*" + SpillFile.TEMP_SUFFIX)) {
            for (Path file : files) {
                long size = Files.size(file);
                Files.delete(file);
                LOG.warn("exchange {}: deleted {} ({} bytes), a spill file a crash left half-written", exchange, file, size);
            }
        }
    }

    /**
     * The complete spill files, by first offset. A file whose header is unreadable is renamed
     * with {@link #CORRUPT_SUFFIX} and reported, never read as data.
     */
    public List<SpilledBatch> list() throws IOException {
        List<SpilledBatch> batches = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SpillFile.SUFFIX)) {
            for (Path file : files) {
                if (file.getFileName().toString().startsWith(".")) {
                    continue;
                }
                try {
                    batches.add(SpillFile.readHeader(file));
                } catch (CorruptSpillFileException e) {
                    quarantine(file, e);
                }
            }
        }
        batches.sort(Comparator.comparingLong(SpilledBatch::firstOffset));
        return batches;
    }

    /** Spills a sealed, non-empty batch durably. */
    public SpilledBatch write(Batch.Contents batch) throws IOException {
        return SpillFile.write(dir, batch);
    }

    /** Reads a spilled batch back, fully checked. */
    public Batch.Contents read(SpilledBatch batch) throws IOException {
        return SpillFile.read(batch.path());
    }

    /** Deletes a spill file whose batch is safely in Parquet. */
    public void delete(SpilledBatch batch) throws IOException {
        Files.deleteIfExists(batch.path());
    }

    /** Renames an unreadable spill file aside and logs why; its data can no longer be written. */
    public void quarantine(Path file, Exception cause) {
        Path aside = file.resolveSibling(file.getFileName() + CORRUPT_SUFFIX);
        try {
            Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
            LOG.error("exchange {}: spill file {} cannot be read and was renamed to {}: {}", exchange, file, aside, cause.getMessage());
        } catch (IOException e) {
            e.addSuppressed(cause);
            LOG.error("exchange {}: spill file {} cannot be read, nor renamed aside", exchange, file, e);
        }
    }
}
