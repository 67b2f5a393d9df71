package io.sluice.exchange;

import io.sluice.exchange.internal.CaptureView;
import io.sluice.exchange.internal.Custody;
import io.sluice.exchange.internal.ExchangeLog;
import io.sluice.exchange.internal.FileEntry;
import io.sluice.exchange.internal.PendingBatch;
import io.sluice.exchange.internal.TopicCanon;
import io.sluice.parquet.FooterKeys;
import io.sluice.parquet.ParquetStore;
import io.sluice.parquet.StoreCounter;
import io.sluice.parquet.StoreRecovery;
import io.sluice.ringbus.Ring;
import io.sluice.ringbus.RingCounter;
import io.sluice.ringbus.SpillDirectory;
import io.sluice.ringbus.SpilledBatch;
import io.sluice.settings.InvalidSettingException;
import io.sluice.stream.CommandException;
import io.sluice.stream.PluginCounter;
import io.sluice.stream.PluginRegistry;
import io.sluice.stream.PluginSettings;
import io.sluice.stream.QueryCommand;
import io.sluice.stream.StreamCodec;
import io.sluice.stream.StreamPlugin;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.StorageCounter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One exchange path: it captures the messages the broker tees to it, keys them with its
 * {@link CaptureClock}, collects them in its {@link Ring}, encodes them with its stream plugin and
 * writes them to Parquet through its {@link ParquetStore}, and answers key-range queries over all
 * of that at once ({@link #query}).
 *
 * <p>Threads: {@code sluice-exchange-<name>-ring} keys and batches, {@code sluice-exchange-<name>-writer}
 * encodes and writes. {@link #offer} is safe from any number of broker threads and never blocks;
 * queries are safe from any threads. A failure on either exchange thread is counted and logged
 * with the exchange's name and never reaches the broker. A writer thread that dies is restarted
 * with the batches it held (see the store's writer); once it is dead for good, every offer is
 * refused (counted as {@link ExchangeCounter#REJECTED_WRITER_DEAD}) and {@link #problems()} says why.
 *
 * <p>At open, offsets and the clock continue from the newest file's footer and from spill files
 * that are not in Parquet yet (those are written first). {@link #close} writes everything
 * buffered, queued and spilled before it returns.
 *
 * <p>With {@code durability = wal} every captured message is appended to the exchange's
 * write-ahead log ({@link ExchangeLog}) before it joins a batch, and the log's offsets are the
 * capture offsets. {@link #offer(String, byte[], long, Runnable)} takes a receipt that runs once
 * the message is durable under the log's flush policy (the broker holds the publisher's PUBACK
 * until then). Once a batch's file is published the log is trimmed behind it. At open, the log's
 * records that the Parquet files lack become pending batches read from the log, queued to the
 * writer ahead of anything new: queries see them at once through the merged read (from the log,
 * not from memory), exactly once, so open does not wait for them to be written. An exchange that
 * has files but no log yet continues its offsets in a new log.
 */
public final class Exchange implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);

    private final ExchangeSettings settings;
    private final StreamPlugin plugin;
    private final StreamCodec codec;
    private final ParquetStore store;
    private final Custody custody;
    private final Ring ring;
    private final ExchangeLog log;
    private final AtomicLongArray counts;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final TopicCanon topics = new TopicCanon();

    private Exchange(ExchangeSettings settings, StreamPlugin plugin, StreamCodec codec, ParquetStore store, Custody custody,
                     Ring ring, ExchangeLog log, AtomicLongArray counts) {
        this.settings = settings;
        this.log = log;
        this.plugin = plugin;
        this.codec = codec;
        this.store = store;
        this.custody = custody;
        this.ring = ring;
        this.counts = counts;
    }

    /**
     * Opens an exchange and starts its threads; a write-ahead log gets flusher threads of its own.
     *
     * @see #open(ExchangeSettings, PluginRegistry, LogScheduler)
     */
    public static Exchange open(ExchangeSettings settings, PluginRegistry plugins) throws IOException {
        return open(settings, plugins, null);
    }

    /**
     * Opens an exchange and starts its threads.
     *
     * @param scheduler flusher threads for the write-ahead log, shared by the server's exchanges and
     *                  closed by the caller after them; null gives the log threads of its own
     * @throws InvalidSettingException with the key path of a bad setting, relative to the exchange block:
     *                                  {@code streamType} (unknown plugin), {@code plugin.<key>},
     *                                  {@code parquet.dir} (cannot be created), {@code ringbus.spill_dir},
     *                                  {@code storage.dir} (the log cannot be opened there)
     * @throws IOException              when reading what is on disk fails
     */
    public static Exchange open(ExchangeSettings settings, PluginRegistry plugins, LogScheduler scheduler) throws IOException {
        String name = settings.name();
        StreamPlugin plugin = plugins.plugin(settings.streamType());
        StreamCodec codec = plugin.open(new PluginSettings(name, settings.plugin()));
        SpillDirectory spill = openSpill(settings);
        AtomicLongArray counts = new AtomicLongArray(ExchangeCounter.values().length);
        ExchangeLog log = openLog(settings, scheduler, counts);
        Custody custody = new Custody(name, codec, spill, log, counts);
        ParquetStore store;
        try {
            // Without a write-ahead log, the open file's journal keeps its complete row groups across a crash.
            store = ParquetStore.open(name, settings.parquet(), footer(settings, plugin), custody, log == null);
        } catch (IOException | RuntimeException e) {
            closeLog(log, e);
            throw e;
        }
        try {
            custody.attach(store);
            StoreRecovery recovered = store.recovery();
            List<SpilledBatch> spilled = unwrittenSpills(spill, recovered.maxOffset(), name);
            custody.recover(spilled);
            long nextOffset = nextOffset(recovered, spilled);
            long lastTs = lastTs(recovered, spilled);
            long replayed = 0;
            if (log != null) {
                ExchangeLog.Recovered unwritten = log.recover(nextOffset, settings.ring().cap(), settings.ring().maxBatchBytes());
                custody.replay(unwritten.ranges());
                replayed = unwritten.records();
                nextOffset = log.nextOffset();
                lastTs = Math.max(lastTs, unwritten.lastTs());
            }
            Ring ring = new Ring(name, settings.ring(), new CaptureClock(nextOffset, lastTs), log, custody, log == null ? spill : null);
            Exchange exchange = new Exchange(settings, plugin, codec, store, custody, ring, log, counts);
            ring.start();
            LOG.info("exchange {}: capturing '{}' with stream plugin {} ({}) through ringbus '{}' (cap {}, fullOp {}) into {}; "
                            + "{} files, {} spilled batches and {} logged records to write, next offset {}, durability {}{}", name,
                    settings.topic(), plugin.id(), plugin.name(), settings.ring().name(), settings.ring().cap(),
                    settings.ring().fullOp(), store.directory(), recovered.files().size(), spilled.size(), replayed, nextOffset,
                    settings.durability().configName(),
                    log == null ? "" : " (write-ahead log " + log.directory() + ", flush " + log.flushPolicy().configName() + ")");
            return exchange;
        } catch (IOException | RuntimeException e) {
            try {
                store.close();
            } finally {
                closeLog(log, e);
            }
            throw e;
        }
    }

    /** The write-ahead log, or null; one derived from a local parquet.dir that cannot be created is that dir's fault. */
    private static ExchangeLog openLog(ExchangeSettings settings, LogScheduler scheduler, AtomicLongArray counts) {
        if (settings.durability() != Durability.WAL) {
            return null;
        }
        try {
            return ExchangeLog.open(settings.name(), settings.walDirectory(), settings.wal(), scheduler, counts);
        } catch (IllegalArgumentException e) {
            if (settings.walDir() != null) {
                throw e;
            }
            throw new InvalidSettingException("parquet.dir", "cannot open the write-ahead log " + settings.walDirectory()
                    + " beside " + settings.parquet().dir() + ": " + e.getCause().getMessage(), e);
        }
    }

    private static void closeLog(ExchangeLog log, Exception cause) {
        if (log == null) {
            return;
        }
        try {
            log.close();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /** The spill directory; one derived from a local parquet.dir that cannot be created is that dir's fault. */
    private static SpillDirectory openSpill(ExchangeSettings settings) throws IOException {
        Path dir = settings.spillDir();
        if (dir == null) {
            return null;
        }
        try {
            return SpillDirectory.open(dir, settings.name());
        } catch (IllegalArgumentException e) {
            if (settings.ring().spillDir() != null) {
                throw e;
            }
            throw new InvalidSettingException("parquet.dir", "cannot create directory " + settings.parquet().dir()
                    + " (with its spill directory " + dir + "): " + e.getCause(), e);
        }
    }

    private static Map<String, String> footer(ExchangeSettings settings, StreamPlugin plugin) {
        return Map.of(FooterKeys.EXCHANGE, settings.name(), FooterKeys.STREAM_TYPE, Integer.toString(plugin.id()),
                FooterKeys.PLUGIN, plugin.name());
    }

    /** Spill files whose batches are not in Parquet yet; the others are stale and deleted. */
    private static List<SpilledBatch> unwrittenSpills(SpillDirectory spill, long parquetMaxOffset, String name) throws IOException {
        List<SpilledBatch> unwritten = new ArrayList<>();
        if (spill == null) {
            return unwritten;
        }
        for (SpilledBatch batch : spill.list()) {
            if (batch.lastOffset() <= parquetMaxOffset) {
                spill.delete(batch);
                LOG.info("exchange {}: deleted spill file {}, whose batch is already in Parquet", name, batch.path());
            } else {
                if (batch.firstOffset() <= parquetMaxOffset) {
                    LOG.warn("exchange {}: spill file {} (offsets {}..{}) overlaps Parquet up to offset {}; writing it whole",
                            name, batch.path(), batch.firstOffset(), batch.lastOffset(), parquetMaxOffset);
                }
                unwritten.add(batch);
            }
        }
        return unwritten;
    }

    private static long nextOffset(StoreRecovery recovered, List<SpilledBatch> spilled) {
        long max = recovered.maxOffset();
        for (SpilledBatch batch : spilled) {
            max = Math.max(max, batch.lastOffset());
        }
        return max + 1;
    }

    private static long lastTs(StoreRecovery recovered, List<SpilledBatch> spilled) {
        long lastTs = recovered.maxTs();
        for (SpilledBatch batch : spilled) {
            lastTs = Math.max(lastTs, batch.maxTs());
        }
        return lastTs;
    }

    public String name() {
        return settings.name();
    }

    /** The MQTT topic filter this exchange captures. */
    public String topic() {
        return settings.topic();
    }

    public ExchangeSettings settings() {
        return settings;
    }

    /** The write-ahead log, or null with durability none; for tests. */
    ExchangeLog writeAheadLog() {
        return log;
    }

    /** Whether captured messages go through a write-ahead log, and receipts wait for it. */
    public Durability durability() {
        return settings.durability();
    }

    public StreamPlugin plugin() {
        return plugin;
    }

    public StreamCodec codec() {
        return codec;
    }

    /** Captures a message that arrived now; see {@link #offer(String, byte[], long)}. */
    public boolean offer(String topic, byte[] payload) {
        return offer(topic, payload, System.currentTimeMillis());
    }

    /**
     * Captures one message: the tee. Any thread; never blocks; allocates nothing.
     *
     * @param payload   the exchange keeps this array; the caller never changes it afterwards
     * @param arrivalMs when the broker received the message, epoch ms
     * @return false, counted, when the ring is full, the exchange is closing or its writer is dead
     */
    public boolean offer(String topic, byte[] payload, long arrivalMs) {
        return writerAlive() && ring.offer(topics.canonical(topic), payload, arrivalMs);
    }

    /**
     * Captures one message and runs {@code durable} once it is durable: with
     * {@code durability = wal}, once its append to the write-ahead log is durable under the log's
     * flush policy (an fsync covering it for {@code always}); with {@code none}, as soon as the ring
     * took it. Any thread; never blocks; allocates nothing.
     *
     * <p>If this returns true, {@code durable} is settled exactly once: run as above, or refused
     * ({@link io.sluice.storage.Receipt#refuse}; counted as {@link ExchangeCounter#WAL_RECEIPTS_REFUSED})
     * when the message is not stored after all: the ring thread refused it (a blocked batch under
     * fullOp NONE, a log that cannot take it), or an unwritable, failed or closing log gave up on it.
     * If this returns false it is never touched, and the caller settles it.
     *
     * @param durable runs on the ring thread, a log flusher thread or the closing thread; must be
     *                quick and must not block
     * @return false, counted, when the ring is full, the exchange is closing or its writer is dead
     */
    public boolean offer(String topic, byte[] payload, long arrivalMs, Runnable durable) {
        return writerAlive() && ring.offer(topics.canonical(topic), payload, arrivalMs, durable);
    }

    /** False, counted, once the Parquet writer is dead for good: what is taken now would never be written. */
    private boolean writerAlive() {
        if (store.writerProblem() == null) {
            return true;
        }
        counts.incrementAndGet(ExchangeCounter.REJECTED_WRITER_DEAD.ordinal());
        return false;
    }

    /**
     * What keeps the exchange from capturing, one line each, empty when it captures: a Parquet writer
     * that is dead for good, a write-ahead log that is offline or unwritable. Any thread.
     */
    public List<String> problems() {
        List<String> problems = new ArrayList<>(2);
        String writer = store.writerProblem();
        if (writer != null) {
            problems.add("Parquet writer: " + writer);
        }
        String wal = log == null ? null : log.problem();
        if (wal != null) {
            problems.add("write-ahead log " + log.directory() + ": " + wal);
        }
        return problems;
    }

    /** Parses a query command with this exchange's plugin. */
    public QueryCommand parseCommand(String command) throws CommandException {
        return codec.parseCommand(command);
    }

    /** Starts a query from a command string. */
    public ExchangeQuery query(String command) throws CommandException {
        return query(parseCommand(command));
    }

    /** Starts a query of everything captured so far with ts in the command's range. */
    public ExchangeQuery query(QueryCommand command) {
        if (closed.get()) {
            throw new IllegalStateException("exchange " + name() + " is closed");
        }
        counts.incrementAndGet(ExchangeCounter.QUERIES.ordinal());
        return new ExchangeQuery(name(), store, codec, command, custody.snapshot(command.start(), command.end()), counts);
    }

    /** Starts a query of all stored columns of ts in [start, end], for rows rather than decoded records. */
    public ExchangeQuery query(long start, long end) {
        return query(new QueryCommand(false, start, end, List.of(), List.of()));
    }

    public long counter(RingCounter counter) {
        return ring.counter(counter);
    }

    public long counter(StoreCounter counter) {
        return store.counter(counter);
    }

    public long counter(ExchangeCounter counter) {
        return counts.get(counter.ordinal());
    }

    /** A counter of this exchange's plugin (e.g. SPI's malformed payloads); 0 for one the plugin does not keep. */
    public long counter(PluginCounter counter) {
        return codec.counters().getOrDefault(counter, 0L);
    }

    /** The exchange's state and every counter, for $SYS and metrics; any thread. */
    public ExchangeStatus status() {
        CaptureView view = custody.view();
        Map<String, Long> all = new LinkedHashMap<>();
        for (RingCounter counter : RingCounter.values()) {
            all.put(counter.metricName(), ring.counter(counter));
        }
        for (StoreCounter counter : StoreCounter.values()) {
            all.put(counter.metricName(), store.counter(counter));
        }
        for (ExchangeCounter counter : ExchangeCounter.values()) {
            all.put(counter.metricName(), counts.get(counter.ordinal()));
        }
        codec.counters().forEach((counter, value) -> all.put(counter.metricName(), value));
        if (log != null) {
            for (StorageCounter counter : StorageCounter.values()) {
                all.put(counter.metricName(), log.counter(counter));
            }
        }
        int spilled = (int) view.pending().stream().filter(b -> !b.inMemory()).count();
        long fileBytes = view.files().stream().mapToLong(f -> f.file().bytes()).sum();
        return new ExchangeStatus(name(), topic(), plugin.id(), plugin.name(), view.files().size(), fileBytes,
                view.pending().size(), spilled, view.active() == null ? 0 : view.active().size(), ring.backlog(), all);
    }

    /** The key range held and the write-ahead log's size; any thread (it lists the log's folder). */
    public CaptureExtent extent() {
        CaptureView view = custody.view();
        long oldest = Long.MAX_VALUE;
        long newest = Long.MIN_VALUE;
        for (FileEntry entry : view.files()) {
            oldest = Math.min(oldest, entry.file().minTs());
            newest = Math.max(newest, entry.file().maxTs());
        }
        for (PendingBatch batch : view.pending()) {
            oldest = Math.min(oldest, batch.minTs());
            newest = Math.max(newest, batch.maxTs());
        }
        boolean empty = oldest == Long.MAX_VALUE;
        return new CaptureExtent(empty ? -1 : oldest, empty ? -1 : newest, log == null ? 0 : directoryBytes(log.directory()));
    }

    private static long directoryBytes(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(file -> {
                try {
                    return Files.size(file);
                } catch (IOException e) {
                    return 0; // trimmed while listed
                }
            }).sum();
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    /**
     * Stops capturing and writes everything buffered, queued and spilled to Parquet before
     * returning (batches the directory refuses even then stay in the write-ahead log or are saved
     * to the spill directory for the next start, or are counted as lost), then closes the log
     * cleanly, which runs the last receipts. Call it after the broker stopped offering and the
     * query server stopped.
     */
    @Override
    public void close() throws IOException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        custody.closing();
        ring.close();
        try {
            store.close();
        } finally {
            if (log != null) {
                log.close();
            }
        }
        LOG.info("exchange {}: closed after capturing {} messages into {} files", name(), ring.counter(RingCounter.RECEIVED),
                store.counter(StoreCounter.FILES_WRITTEN));
    }
}
