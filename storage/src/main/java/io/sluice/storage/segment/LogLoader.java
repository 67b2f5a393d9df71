package io.sluice.storage.segment;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.LogSettings;
import io.sluice.storage.StorageCounter;
import io.sluice.storage.StorageCounters;
import io.sluice.storage.StorageException;

/**
 * Opens a log directory and brings it to a consistent state before the first read or append:
 * the recovery half of the log.
 *
 * <h2>Files in a log directory</h2>
 * <pre>
 *  00000000000000000000.log        segment files, see {@link Segment}, {@link RecordBatch}
 *  00000000000000000000.index      its offset index, see {@link OffsetIndex}
 *  00000000000000000000.timeindex  its time index, see {@link TimeIndex}
 *  log.checkpoint                  recovery point, log start offset, cleaner checkpoint ({@link LogCheckpoint})
 *  clean-shutdown                  empty; present only between a clean close and the next open
 *  .lock                           held (fcntl lock) while a process has the log open
 *  *.cleaned                       compaction output being written; deleted at open
 *  *.swap                          compaction output complete and fsynced; the swap is finished at open
 *  *.deleted                       segments being deleted; deleted at open
 *  *.tmp                           a checkpoint being written; deleted at open
 * </pre>
 *
 * <h2>Steps</h2>
 * <ol>
 *  <li>Delete {@code .tmp}, {@code .cleaned} and {@code .deleted} files: unfinished work.</li>
 *  <li>Finish every swap: a {@code <base>.log.swap} covers offsets [base, its next offset); delete
 *      the segments it replaces and rename it to {@code <base>.log}.</li>
 *  <li>Delete segments wholly below the persisted log start offset (trimmed before the crash).</li>
 *  <li>Load each segment. Without the clean-shutdown marker, every segment not wholly below the
 *      recovery point is scanned: each batch's CRC is checked, the indexes rebuilt, and the file is
 *      cut after the last valid batch. Segments below the recovery point (or all, after a clean
 *      shutdown) are trusted but checked: the indexes must be plausible and the batches after the
 *      last index entry must be valid, else the segment is scanned too.</li>
 *  <li>After a cut, every later segment is deleted: nothing after a torn write can be trusted to be
 *      in order, and none of it was ever acknowledged, because the high watermark only passes data
 *      once it and everything before it is durable.</li>
 *  <li>fsync what was rebuilt, write a new checkpoint, delete the clean-shutdown marker.</li>
 * </ol>
 * A torn tail is routine after a crash and logged at WARN with file, position and bytes; damage
 * that makes segments overlap is an error that stops the open, naming both files.
 */
final class LogLoader {
    static final String CLEAN_SHUTDOWN_FILE = "clean-shutdown";
    private static final Logger LOG = LoggerFactory.getLogger(LogLoader.class);

    private final Path dir;
    private final String name;
    private final LogSettings settings;
    private final StorageCounters counters;
    private final List<String> cuts = new ArrayList<>();
    private int segmentsScanned;
    private int indexesRebuilt;
    private long bytesTruncated;
    private int segmentsDeleted;
    private int swapsCompleted;
    private final List<Segment> scanned = new ArrayList<>();

    /** The loaded state handed to the log. */
    record Loaded(LogSegments segments, long logStartOffset, long recoveryPoint, long cleanerCheckpoint,
                  RecoveryReport report) {
    }

    LogLoader(Path dir, String name, LogSettings settings, StorageCounters counters) {
        this.dir = dir;
        this.name = name;
        this.settings = settings;
        this.counters = counters;
    }

    Loaded load() throws IOException {
        LogCheckpoint checkpoint = readCheckpoint();
        boolean clean = Files.exists(dir.resolve(CLEAN_SHUTDOWN_FILE));
        TreeSet<Long> swaps = new TreeSet<>();
        removeUnfinishedWork(swaps);
        for (long base : swaps) {
            completeSwap(base);
        }
        TreeMap<Long, Path> files = segmentFiles();
        long logStart = checkpoint.logStartOffset() >= 0 ? checkpoint.logStartOffset()
                : files.isEmpty() ? 0 : files.firstKey();
        deleteBelowLogStart(files, logStart);
        LogSegments segments = new LogSegments();
        loadSegments(files, clean, checkpoint.recoveryPoint(), segments);
        if (segments.count() == 0) {
            segments.put(Segment.create(dir, logStart, settings, ""));
        }
        Segment active = segments.last();
        active.prepareForAppend();
        logStart = Math.max(logStart, segments.first().baseOffset());
        for (Segment segment : scanned) {
            if (segments.contains(segment)) {
                segment.flush();
            }
        }
        DurableFiles.fsyncDirectory(dir);
        long recoveryPoint = active.baseOffset();
        long cleanerCheckpoint = Math.max(checkpoint.cleanerCheckpoint(), logStart);
        new LogCheckpoint(recoveryPoint, logStart, cleanerCheckpoint).write(dir);
        if (Files.deleteIfExists(dir.resolve(CLEAN_SHUTDOWN_FILE))) {
            DurableFiles.fsyncDirectory(dir);
        }
        RecoveryReport report = new RecoveryReport(clean, segments.count(), segmentsScanned, indexesRebuilt,
                bytesTruncated, segmentsDeleted, swapsCompleted, cuts);
        if (files.isEmpty()) {
            LOG.debug("Log '{}' created in {}", name, dir);
        } else if (!clean || bytesTruncated > 0 || indexesRebuilt > 0) {
            LOG.info("Log '{}' in {} opened after {} shutdown: {}", name, dir, clean ? "a clean" : "an unclean", report);
        }
        return new Loaded(segments, logStart, recoveryPoint, cleanerCheckpoint, report);
    }

    private LogCheckpoint readCheckpoint() {
        try {
            return LogCheckpoint.read(dir);
        } catch (IOException e) {
            LOG.error("Log '{}': {}; scanning every segment and starting at the first one", name, e.getMessage());
            return new LogCheckpoint(0, -1, 0);
        }
    }

    private void removeUnfinishedWork(TreeSet<Long> swaps) throws IOException {
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path file : stream) {
                String fileName = file.getFileName().toString();
                if (fileName.endsWith(DurableFiles.TEMP_SUFFIX) || fileName.endsWith(Segment.CLEANED_SUFFIX)
                        || fileName.endsWith(Segment.DELETED_SUFFIX)) {
                    LOG.info("Log '{}': deleting unfinished {}", name, file);
                    Files.delete(file);
                } else if (fileName.endsWith(Segment.LOG_SUFFIX + Segment.SWAP_SUFFIX)) {
                    long base = Segment.parseBaseOffset(fileName);
                    if (base >= 0) {
                        swaps.add(base);
                    }
                }
            }
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*" + Segment.SWAP_SUFFIX)) {
            for (Path file : stream) {
                long base = Segment.parseBaseOffset(file.getFileName().toString());
                if (!swaps.contains(base)) {
                    Files.delete(file); // an index .swap whose log was already renamed: the index is rebuilt
                }
            }
        }
    }

    /** Finishes a compaction swap that a crash interrupted: the .swap segment replaces what it covers. */
    private void completeSwap(long base) throws IOException {
        Segment swap = Segment.open(dir, base, settings, Segment.SWAP_SUFFIX);
        try {
            swap.recover();
            long next = swap.nextOffset();
            for (var entry : segmentFiles().subMap(base, true, next, false).entrySet()) {
                deleteSegmentFiles(entry.getKey(), "replaced by the compacted " + swap.logFile());
            }
            swap.onBecomeInactive();
            swap.flush();
            swap.changeSuffix(Segment.SWAP_SUFFIX, "");
            DurableFiles.fsyncDirectory(dir);
            swapsCompleted++;
            LOG.info("Log '{}': finished the compaction swap of offsets {}..{} into {}", name, base, next - 1, swap.logFile());
        } finally {
            swap.release();
        }
    }

    private TreeMap<Long, Path> segmentFiles() throws IOException {
        TreeMap<Long, Path> files = new TreeMap<>();
        List<Path> indexes = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path file : stream) {
                String fileName = file.getFileName().toString();
                long base = Segment.parseBaseOffset(fileName);
                if (base < 0) {
                    continue;
                }
                if (fileName.equals(Segment.fileName(base, Segment.LOG_SUFFIX))) {
                    files.put(base, file);
                } else if (fileName.equals(Segment.fileName(base, Segment.INDEX_SUFFIX))
                        || fileName.equals(Segment.fileName(base, Segment.TIME_INDEX_SUFFIX))) {
                    indexes.add(file);
                }
            }
        }
        for (Path index : indexes) {
            if (!files.containsKey(Segment.parseBaseOffset(index.getFileName().toString()))) {
                LOG.info("Log '{}': deleting index {} whose segment file is gone (a crash during a roll)", name, index);
                Files.delete(index);
            }
        }
        return files;
    }

    private void deleteBelowLogStart(TreeMap<Long, Path> files, long logStart) throws IOException {
        List<Long> bases = new ArrayList<>(files.keySet());
        for (int i = 0; i + 1 < bases.size() && bases.get(i + 1) <= logStart; i++) {
            deleteSegmentFiles(bases.get(i), "wholly below the log start offset " + logStart);
            files.remove(bases.get(i));
        }
    }

    private void deleteSegmentFiles(long base, String why) throws IOException {
        LOG.info("Log '{}': deleting segment {} ({})", name, dir.resolve(Segment.fileName(base, Segment.LOG_SUFFIX)), why);
        Files.deleteIfExists(dir.resolve(Segment.fileName(base, Segment.LOG_SUFFIX)));
        Files.deleteIfExists(dir.resolve(Segment.fileName(base, Segment.INDEX_SUFFIX)));
        Files.deleteIfExists(dir.resolve(Segment.fileName(base, Segment.TIME_INDEX_SUFFIX)));
        segmentsDeleted++;
    }

    /** Loads segments in offset order. */
    private void loadSegments(TreeMap<Long, Path> files, boolean clean, long recoveryPoint, LogSegments segments)
            throws IOException {
        List<Long> bases = new ArrayList<>(files.keySet());
        Segment previous = null;
        for (int i = 0; i < bases.size(); i++) {
            long base = bases.get(i);
            boolean last = i == bases.size() - 1;
            Segment segment = Segment.open(dir, base, settings, "");
            boolean scan = !clean && (last || bases.get(i + 1) > recoveryPoint);
            if (!scan) {
                String problem = segment.loadTrusted();
                if (problem != null) {
                    LOG.warn("Log '{}': segment {} needs recovery: {}", name, segment.logFile(), problem);
                    scan = true;
                }
            }
            long cut = 0;
            if (scan) {
                cut = scan(segment);
                if (!last && cut == 0) {
                    segment.onBecomeInactive();
                }
            }
            if (previous != null && previous.nextOffset() > base) {
                if (segment.nextOffset() <= previous.nextOffset()) {
                    // a segment a compacted one replaced, left behind by a crash during the swap's renames
                    segment.release();
                    deleteSegmentFiles(base, "its offsets are covered by " + previous.logFile());
                    continue;
                }
                segment.release();
                throw new StorageException("log '" + name + "': segment " + previous.logFile() + " ends at offset "
                        + (previous.nextOffset() - 1) + ", past the base offset of the next segment " + segment.logFile());
            }
            segments.put(segment);
            previous = segment;
            if (cut > 0 && !last) {
                for (long later : bases.subList(i + 1, bases.size())) {
                    deleteSegmentFiles(later, "after the cut in " + segment.logFile());
                }
                break;
            }
        }
    }

    private long scan(Segment segment) throws IOException {
        Segment.RecoveryCut cut = segment.recover();
        scanned.add(segment);
        segmentsScanned++;
        indexesRebuilt++;
        counters.increment(StorageCounter.INDEXES_REBUILT);
        if (cut.bytes() > 0) {
            bytesTruncated += cut.bytes();
            counters.add(StorageCounter.RECOVERY_BYTES_TRUNCATED, cut.bytes());
            cuts.add(segment.logFile() + ": cut " + cut.bytes() + " bytes at byte position " + segment.size()
                    + " (" + cut.reason() + ")");
        }
        return cut.bytes();
    }
}
