package io.sluice.parquet;

import io.sluice.parquet.internal.FileInput;
import io.sluice.parquet.internal.RowGroupJournal;
import io.sluice.parquet.internal.ZstdPageCompressor;
import io.sluice.settings.InvalidSettingException;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One exchange's Parquet files: an asynchronous writer fed through a bounded queue, the catalog
 * of published files with retention, and range scans.
 *
 * <p>Files live in {@code parquet.dir}, which may be a local path or any Hadoop FileSystem URI
 * ({@code file:} by default; local files are written through the raw local file system, so no
 * {@code .crc} sidecars appear). Names follow {@link FileName}; footers carry {@link FooterKeys}.
 * A file is written under its temporary name, gaining a row group per batch, and is made durable
 * and renamed when complete (see {@link StoreWriter}), so readers never see a half-written file and
 * a crash leaves nothing that looks finished but is not. A temporary file found at open is such a
 * leftover: when it has a row-group journal (kept for local files when the store is opened with
 * one, i.e. {@code durability = none}), its journaled row groups get their footer and the file is
 * published; otherwise it is deleted (its rows are still in the exchange's write-ahead log).
 *
 * <p>Retention: {@code file_count} files at most; publishing one more retires the oldest. Files
 * whose newest row is older than {@code retention} are retired too (checked every second), except
 * the newest file. The {@link StoreListener} deletes retired files through {@link #delete} when no
 * reader needs them. {@code file_size} is the size of one file, so the files take about
 * {@code file_count × file_size} bytes at most.
 *
 * <p>Threading: one writer thread ({@code sluice-exchange-<name>-writer}) writes and publishes;
 * {@link #enqueue} is for one producer (the ring thread); scans, {@link #files()} and counters are
 * safe from any thread.
 */
public final class ParquetStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ParquetStore.class);
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:.*");
    /** Suffix given to a published file found unreadable at open. */
    public static final String CORRUPT_SUFFIX = ".corrupt";

    private final String exchange;
    private final ParquetSettings settings;
    private final Map<String, String> fileMetadata;
    private final Configuration configuration;
    private final FileSystem fs;
    private final Path dir;
    private final boolean local;
    private final boolean journaled;
    private final FileName names;
    private final Catalog catalog;
    private final StoreRecovery recovery;
    private final StoreListener listener;
    private final WriteQueue queue;
    private final WriterThread writer;
    private final AtomicLongArray counts = new AtomicLongArray(StoreCounter.values().length);
    private final AtomicBoolean closed = new AtomicBoolean();

    private ParquetStore(String exchange, ParquetSettings settings, Map<String, String> fileMetadata, Configuration configuration,
                         FileSystem fs, Path dir, FileName names, StoreListener listener, boolean journal) throws IOException {
        this.exchange = exchange;
        this.settings = settings;
        this.fileMetadata = Map.copyOf(fileMetadata);
        this.configuration = configuration;
        this.fs = fs;
        this.dir = dir;
        this.local = "file".equals(dir.toUri().getScheme());
        this.journaled = journal && local;
        this.names = names;
        this.listener = listener;
        this.queue = new WriteQueue(settings.queueBatches());
        this.recovery = recover();
        this.catalog = new Catalog(settings.fileCount(), applyRetention(recovery.files()), nextSeq(recovery.files()));
        this.writer = new WriterThread(this, queue, () -> new StoreWriter(this, queue, listener));
    }

    /**
     * Opens an exchange's store: creates the directory, removes crash leftovers, reads the
     * catalog and the newest footer, applies {@code file_count}, and starts the writer thread.
     *
     * @param fileMetadata footer entries to add to every file (exchange name, plugin)
     * @throws InvalidSettingException for {@code parquet.dir} when the directory or its file
     *                                  system cannot be opened or created, or {@code name} when the
     *                                  exchange name cannot be part of a file name
     * @throws IOException              when reading the directory fails
     */
    public static ParquetStore open(String exchange, ParquetSettings settings, Map<String, String> fileMetadata,
                                    StoreListener listener) throws IOException {
        return open(exchange, settings, fileMetadata, listener, false);
    }

    /**
     * Opens an exchange's store; see {@link #open(String, ParquetSettings, Map, StoreListener)}.
     *
     * @param journal whether the open file keeps a row-group journal (local directories only), so a
     *                crash keeps its complete row groups: for exchanges without a write-ahead log
     */
    public static ParquetStore open(String exchange, ParquetSettings settings, Map<String, String> fileMetadata,
                                    StoreListener listener, boolean journal) throws IOException {
        FileName names = new FileName(settings.fileNamePrefix(), exchange);
        Configuration configuration = configuration(settings);
        if (settings.compress() == Compression.ZSTD) {
            ZstdPageCompressor.level(configuration); // a bad level stops start-up, not the writer
        }
        Path dir = directory(settings.dir());
        FileSystem fs;
        try {
            fs = FileSystem.newInstance(dir.toUri(), configuration);
        } catch (IOException | RuntimeException e) {
            throw new InvalidSettingException("parquet.dir", "cannot open the file system of " + settings.dir() + ": " + e.getMessage(), e);
        }
        try {
            createDirectory(fs, dir, settings.dir());
            ParquetStore store = new ParquetStore(exchange, settings, fileMetadata, configuration, fs, dir, names, listener, journal);
            store.writer.start();
            return store;
        } catch (IOException | RuntimeException e) {
            fs.close();
            throw e;
        }
    }

    private static Configuration configuration(ParquetSettings settings) {
        Configuration configuration = new Configuration();
        configuration.setClass("fs.file.impl", RawLocalFileSystem.class, FileSystem.class);
        settings.hadoop().forEach(configuration::set);
        return configuration;
    }

    private static Path directory(String dir) {
        if (SCHEME.matcher(dir).matches()) {
            return new Path(URI.create(dir));
        }
        return new Path(new File(dir).getAbsoluteFile().toURI());
    }

    private static void createDirectory(FileSystem fs, Path dir, String configured) {
        try {
            if (!fs.mkdirs(dir) || !fs.getFileStatus(dir).isDirectory()) {
                throw new IOException("mkdirs returned false");
            }
        } catch (IOException | RuntimeException e) {
            throw new InvalidSettingException("parquet.dir", "cannot create directory " + configured + ": " + e.getMessage(), e);
        }
    }

    private StoreRecovery recover() {
        List<StoredFile> files = new ArrayList<>();
        List<Path> journals = new ArrayList<>();
        int temps = 0;
        try {
            for (FileStatus status : fs.listStatus(dir)) {
                String name = status.getPath().getName();
                if (status.isFile() && names.isTemporary(name)) {
                    StoredFile rescued = rescue(status);
                    if (rescued != null) {
                        files.add(rescued);
                        continue;
                    }
                    fs.delete(status.getPath(), false);
                    temps++;
                    LOG.warn("exchange {}: deleted {} ({} bytes), a file a crash left half-written", exchange, status.getPath(), status.getLen());
                    continue;
                }
                if (status.isFile() && names.isJournal(name)) {
                    journals.add(status.getPath());
                    continue;
                }
                FileName.Parsed parsed = status.isFile() ? names.parsePublished(name) : null;
                if (parsed != null) {
                    files.add(new StoredFile(status.getPath().toString(), name, parsed.seq(), parsed.minTs(), parsed.maxTs(), status.getLen()));
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("exchange " + exchange + ": cannot list " + dir, e);
        }
        for (Path journal : journals) {
            deleteOrphanJournal(journal);
        }
        counts.addAndGet(StoreCounter.TEMP_FILES_REMOVED.ordinal(), temps);
        files.sort(Comparator.comparingLong(StoredFile::seq));
        return recoverKeys(files, temps);
    }

    /**
     * Publishes the journaled row groups of a file a crash left open, deleting the journal; null
     * when there is no journal or nothing in it (the caller deletes the file).
     */
    private StoredFile rescue(FileStatus status) throws IOException {
        long seq = names.temporarySeq(status.getPath().getName());
        java.nio.file.Path journal = local ? localPath(path(names.journal(seq))) : null;
        if (journal == null || !java.nio.file.Files.exists(journal)) {
            return null;
        }
        try {
            Map<String, String> footer = RowGroupJournal.recover(localPath(status.getPath()), journal);
            if (footer == null) {
                return null;
            }
            long minTs = Long.parseLong(footer.get(FooterKeys.MIN_TS));
            long maxTs = Long.parseLong(footer.get(FooterKeys.MAX_TS));
            String name = names.published(minTs, maxTs, seq);
            Path target = path(name);
            if (!fs.rename(status.getPath(), target)) {
                throw new IOException("cannot rename " + status.getPath() + " to " + target);
            }
            syncDirectory();
            counts.incrementAndGet(StoreCounter.FILES_RECOVERED.ordinal());
            LOG.warn("exchange {}: published {} rows a crash left in open file {} as {}", exchange, footer.get(FooterKeys.ROWS),
                    status.getPath(), name);
            return new StoredFile(target.toString(), name, seq, minTs, maxTs, length(target));
        } catch (IOException | RuntimeException e) {
            LOG.error("exchange {}: cannot recover the row groups of open file {} from its journal {}; deleting both", exchange,
                    status.getPath(), journal, e);
            return null;
        } finally {
            java.nio.file.Files.deleteIfExists(journal);
        }
    }

    /** A journal whose file was published (a crash came before its deletion); rescue already deleted the others. */
    private void deleteOrphanJournal(Path journal) {
        try {
            if (fs.exists(journal)) {
                fs.delete(journal, false);
                LOG.info("exchange {}: deleted {}, the journal of a file already published", exchange, journal);
            }
        } catch (IOException e) {
            LOG.warn("exchange {}: cannot delete leftover journal {}: {}", exchange, journal, e.toString());
        }
    }

    private java.nio.file.Path localPath(Path path) {
        return Paths.get(path.toUri());
    }

    /** Where the open file {@code seq} keeps its row-group journal, or null when it keeps none. */
    java.nio.file.Path journalPath(long seq) {
        return journaled ? localPath(path(names.journal(seq))) : null;
    }

    /** Reads the newest readable footer; unreadable newest files are renamed aside. */
    private StoreRecovery recoverKeys(List<StoredFile> files, int temps) {
        int corrupt = 0;
        while (!files.isEmpty()) {
            StoredFile newest = files.get(files.size() - 1);
            try {
                Map<String, String> footer = footer(newest);
                return new StoreRecovery(List.copyOf(files), Long.parseLong(footer.get(FooterKeys.MAX_OFFSET)),
                        Long.parseLong(footer.get(FooterKeys.MAX_TS)), temps, corrupt);
            } catch (IOException | RuntimeException e) {
                files.remove(files.size() - 1);
                corrupt++;
                counts.incrementAndGet(StoreCounter.CORRUPT_FILES.ordinal());
                quarantine(newest, e);
            }
        }
        return new StoreRecovery(List.of(), -1, Long.MIN_VALUE, temps, corrupt);
    }

    private Map<String, String> footer(StoredFile file) throws IOException {
        Path path = new Path(file.location());
        try (ParquetFileReader reader = ParquetFileReader.open(new FileInput(fs, path, file.bytes()))) {
            ParquetMetadata footer = reader.getFooter();
            Map<String, String> metadata = footer.getFileMetaData().getKeyValueMetaData();
            if (metadata.get(FooterKeys.MAX_OFFSET) == null || metadata.get(FooterKeys.MAX_TS) == null) {
                throw new IOException("footer lacks " + FooterKeys.MAX_OFFSET + " or " + FooterKeys.MAX_TS);
            }
            return metadata;
        }
    }

    private void quarantine(StoredFile file, Exception cause) {
        Path path = new Path(file.location());
        Path aside = new Path(path.getParent(), file.name() + CORRUPT_SUFFIX);
        try {
            fs.rename(path, aside);
            LOG.error("exchange {}: newest file {} ({} bytes) is unreadable and was renamed to {}: {}", exchange, path,
                    file.bytes(), aside, cause.toString());
        } catch (IOException e) {
            e.addSuppressed(cause);
            LOG.error("exchange {}: newest file {} is unreadable, nor could it be renamed aside", exchange, path, e);
        }
    }

    private long nextSeq(List<StoredFile> files) {
        return files.isEmpty() ? 0 : files.get(files.size() - 1).seq() + 1;
    }

    /** Applies file_count and retention to what was found at open; no reader exists yet, so files go at once. */
    private List<StoredFile> applyRetention(List<StoredFile> files) throws IOException {
        int excess = Math.max(0, files.size() - settings.fileCount());
        if (!settings.retention().isZero()) {
            long cutoff = System.currentTimeMillis() - settings.retention().toMillis();
            while (excess + 1 < files.size() && files.get(excess).maxTs() < cutoff) {
                excess++;
            }
        }
        if (excess <= 0) {
            return files;
        }
        for (StoredFile file : files.subList(0, excess)) {
            delete(file);
        }
        LOG.info("exchange {}: deleted the {} oldest files beyond file_count {} or retention {}", exchange, excess, settings.fileCount(),
                settings.retention());
        return files.subList(excess, files.size());
    }

    Catalog catalog() {
        return catalog;
    }

    /** What open found. */
    public StoreRecovery recovery() {
        return recovery;
    }

    /** The published files, in seq (= key) order. */
    public List<StoredFile> files() {
        return catalog().files();
    }

    /** Total bytes of the published files. */
    public long totalBytes() {
        return catalog().totalBytes();
    }

    /** Whether an in-memory batch can be queued now without exceeding {@code queue_batches}. */
    public boolean hasRoom() {
        return queue.hasRoom();
    }

    /** Waits up to the timeout for room for an in-memory batch. */
    public boolean awaitRoom(long timeout, TimeUnit unit) throws InterruptedException {
        return queue.awaitRoom(timeout, unit);
    }

    /**
     * Queues a batch behind the ones queued before; never blocks. Room is the caller's decision
     * ({@link #hasRoom}); at close a batch may be queued over capacity.
     *
     * @throws IllegalStateException once the store is closed
     */
    public void enqueue(StoreBatch batch) {
        if (closed.get()) {
            throw new IllegalStateException("exchange " + exchange + ": the Parquet store is closed");
        }
        queue.add(batch);
    }

    /** Batches queued or being written that are held in memory. */
    public int pendingInMemory() {
        return queue.inMemory();
    }

    /**
     * Reads the rows of one file whose ts is in [start, end], in chunks.
     *
     * @param columns the columns to read (absent ones are left out); empty reads all; ts is always read
     */
    public FileScan scan(StoredFile file, long start, long end, List<String> columns) throws IOException {
        return FileScan.open(fs, file, configuration, start, end, columns);
    }

    /** Reads the rows of every published file whose ts is in [start, end], in key order. */
    public StoreScan scan(long start, long end, List<String> columns) {
        return new StoreScan(this, files(), start, end, columns);
    }

    /** Deletes a retired file. */
    public void delete(StoredFile file) throws IOException {
        if (fs.delete(new Path(file.location()), false)) {
            counts.incrementAndGet(StoreCounter.FILES_DELETED.ordinal());
            counts.addAndGet(StoreCounter.BYTES_DELETED.ordinal(), file.bytes());
            LOG.debug("exchange {}: deleted {} by retention", exchange, file.location());
        }
    }

    /**
     * Why the writer thread is dead for good (it died {@value WriterThread#MAX_DEATHS_IN_A_ROW} times in a row
     * and is not restarted), or null while it works. Any thread.
     */
    public String writerProblem() {
        return writer.problem();
    }

    /** A counter's current value. */
    public long counter(StoreCounter counter) {
        return counts.get(counter.ordinal());
    }

    public String exchange() {
        return exchange;
    }

    /** The directory as a URI. */
    public String directory() {
        return dir.toString();
    }

    public ParquetSettings settings() {
        return settings;
    }

    /**
     * Writes every queued batch (retrying failed writes a few times, then reporting what is left
     * to {@link StoreListener#unwritten}), stops the writer thread and releases the file system.
     */
    @Override
    public void close() throws IOException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        queue.close();
        boolean interrupted = false;
        while (true) {
            try {
                writer.join(listener);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        fs.close();
    }

    // ---- for the writer thread ----

    /** The writer thread ends on an unexpected error (its own thread): see {@link WriterThread}. */
    void writerDied(Throwable cause) {
        writer.died(cause);
    }

    void count(StoreCounter counter, long delta) {
        counts.addAndGet(counter.ordinal(), delta);
    }

    FileName names() {
        return names;
    }

    Map<String, String> fileMetadata() {
        return fileMetadata;
    }

    FileSystem fileSystem() {
        return fs;
    }

    Configuration configuration() {
        return configuration;
    }

    Path path(String name) {
        return new Path(dir, name);
    }

    /**
     * Renames a complete temporary file to its final name and tells the catalog and the listener.
     * Once the rename succeeded the file is published whatever happens next: later steps log
     * their failures instead of throwing, so a retry can never write the same batches twice.
     */
    void publish(Path temp, long seq, long minTs, long maxTs, long records, List<StoreBatch> batches) throws IOException {
        String name = names.published(minTs, maxTs, seq);
        Path target = path(name);
        if (!fs.rename(temp, target)) {
            throw new IOException("cannot rename " + temp + " to " + target);
        }
        syncDirectory();
        StoredFile file = new StoredFile(target.toString(), name, seq, minTs, maxTs, length(target));
        writer.published();
        List<StoredFile> retired = catalog.add(file);
        counts.incrementAndGet(StoreCounter.FILES_WRITTEN.ordinal());
        counts.addAndGet(StoreCounter.BATCHES_WRITTEN.ordinal(), batches.size());
        counts.addAndGet(StoreCounter.RECORDS_WRITTEN.ordinal(), records);
        counts.addAndGet(StoreCounter.BYTES_WRITTEN.ordinal(), file.bytes());
        try {
            listener.published(file, batches, retired);
        } catch (RuntimeException e) {
            LOG.error("exchange {}: the listener failed on published file {}", exchange, target, e);
        }
    }

    /** Retires the files retention's age limit removes ({@code cutoffTs} = now − retention). */
    void expire(long cutoffTs) {
        List<StoredFile> retired = catalog.expire(cutoffTs);
        if (retired.isEmpty()) {
            return;
        }
        try {
            listener.expired(retired);
        } catch (RuntimeException e) {
            LOG.error("exchange {}: the listener failed on {} files retired by age", exchange, retired.size(), e);
        }
    }

    private long length(Path file) {
        try {
            return fs.getFileStatus(file).getLen();
        } catch (IOException e) {
            LOG.warn("exchange {}: cannot read the length of {} after publishing it: {}", exchange, file, e.toString());
            return 0;
        }
    }

    /** Makes the rename durable on a local disk; other file systems order metadata themselves. */
    private void syncDirectory() {
        if (local) {
            try (FileChannel channel = FileChannel.open(Paths.get(dir.toUri()), StandardOpenOption.READ)) {
                channel.force(true);
            } catch (IOException e) {
                LOG.warn("exchange {}: cannot fsync directory {}: {}", exchange, dir, e.toString());
            }
        }
    }
}
