package io.sluice.exchange.internal;

import io.sluice.exchange.ExchangeCounter;
import io.sluice.logging.RateLimitedLog;
import io.sluice.ringbus.Batch;
import io.sluice.ringbus.WriteAheadLog;
import io.sluice.settings.InvalidSettingException;
import io.sluice.storage.DurabilityListener;
import io.sluice.storage.FlushPolicy;
import io.sluice.storage.Log;
import io.sluice.storage.LogCursor;
import io.sluice.storage.LogScheduler;
import io.sluice.storage.LogSettings;
import io.sluice.storage.LogWriteException;
import io.sluice.storage.Receipt;
import io.sluice.storage.RecordTooLargeException;
import io.sluice.storage.StorageCounter;
import io.sluice.storage.StorageException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An exchange's write-ahead log ({@code durability = wal}): a segmented {@link Log} in
 * {@code <storage.dir>/<exchange>} holding every captured message from the moment the ring thread
 * takes it until its Parquet file is published. The log's offsets are the exchange's capture
 * offsets, so a record means the same thing in the log, in memory and in Parquet.
 *
 * <p>Record: timestamp = the capture ts, no key, value = the payload, one tag = the MQTT topic.
 *
 * <p>Life of a record: the ring thread appends it ({@link #append}, no lock, no allocation) and
 * commits the log ({@link #commit}, never waiting for an fsync) at the end of each Disruptor batch
 * in which a receipt waits, before each batch goes to the writer, and when the ring goes idle;
 * the log makes it durable under its flush policy and tells {@link #onDurable}, which runs the
 * receipts ({@link ReceiptQueue}) whose offsets it passed. Once a batch's file is published,
 * the custody trims the log behind the lowest offset that is still only here ({@link #trim}). At
 * open, records the Parquet files lack are found ({@link #recover}) and written from the log.
 *
 * <p>A receipt is never run for a message the log does not hold durably: it is refused
 * ({@link io.sluice.storage.Receipt#refuse}, counted as {@code exchange_wal_receipts_refused_total}),
 * so the broker does not acknowledge the message as stored.
 *
 * <p>A failed write that changed nothing (a full disk) makes the log unwritable for a while: the
 * receipts waiting are refused, and the ring refuses every message (the log returns -1, counted
 * as {@code ring_rejected_unlogged_total}) until a retry of the write, every
 * {@value #WRITE_RETRY_MS} ms on the ring thread (also when no message comes), succeeds; then
 * capture goes on by itself. A failed fsync (or any other I/O failure) takes the log offline for
 * good: the ring refuses every message, receipts still waiting are refused, and batches in memory
 * are still written to Parquet. So does any other exception or error the log throws on the ring
 * thread ({@link #fail}). A restart opens the log again, recovering its valid prefix.
 *
 * <p>Threads: {@link #append}, {@link #commit}, {@link #endOfBatch}, {@link #whenDurable} and {@link #isAvailable} are the
 * ring thread's (and the closing thread's once the ring stopped); {@link #recover} runs at open
 * before the ring starts; {@link #onDurable} runs on a flusher thread under {@code always}, else on
 * the ring thread; {@link #read}, {@link #trim}, {@link #hold} and the marks are for any thread.
 */
public final class ExchangeLog implements WriteAheadLog, DurabilityListener, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ExchangeLog.class);
    /** A failure that repeats (a receipt failing, a log refusing to be trimmed) is logged once per this. */
    private static final Duration ERROR_INTERVAL = Duration.ofSeconds(10);
    /** How often an unwritable log tries its failed write again. */
    static final long WRITE_RETRY_MS = 500;
    private static final long WRITE_RETRY_NANOS = WRITE_RETRY_MS * 1_000_000;

    private final String exchange;
    private final Log log;
    private final AtomicLongArray counts;
    private final RateLimitedLog errors;
    private final ReceiptQueue receipts;
    private final boolean flusherDrains;
    private volatile boolean available = true;
    /** The last write failed without harm (a full disk); the ring thread retries it. */
    private volatile boolean unwritable;
    /** What made the log unwritable or took it offline, or null. */
    private volatile Throwable lastFailure;
    private volatile boolean closed;
    private volatile LongConsumer advanced = highWatermark -> { };
    private long floor = Long.MAX_VALUE;
    // Ring thread only: receipts handed over, and how many of them the last commit covered.
    private long receiptsAdded;
    private long receiptsCommitted;
    // Ring thread only: when an unwritable log tries again (System.nanoTime()).
    private long nextWriteRetry;

    /**
     * What {@link #recover} found.
     *
     * @param ranges records not yet in Parquet, cut into batches, in offset order
     * @param lastTs the ts of the last of them, or {@link Long#MIN_VALUE} when there are none
     */
    public record Recovered(List<LoggedRange> ranges, long lastTs) {

        /** Records in all ranges. */
        public long records() {
            long sum = 0;
            for (LoggedRange range : ranges) {
                sum += range.count();
            }
            return sum;
        }
    }

    private ExchangeLog(String exchange, Log log, AtomicLongArray counts) {
        this.exchange = exchange;
        this.log = log;
        this.counts = counts;
        this.errors = RateLimitedLog.onePer(LOG, "exchange " + exchange, ERROR_INTERVAL);
        this.receipts = new ReceiptQueue(e -> errors.error("a capture receipt failed", e));
        this.flusherDrains = log.settings().flush() == FlushPolicy.ALWAYS;
    }

    /**
     * Opens (creating, or recovering after a crash) the log of exchange {@code exchange} in {@code dir}.
     *
     * @param scheduler flusher threads shared with other logs, closed by the caller; null gives the log its own
     * @param counts    the exchange's counters, indexed by {@link ExchangeCounter}
     * @throws InvalidSettingException for {@code storage.dir} when the log cannot be opened there
     */
    public static ExchangeLog open(String exchange, Path dir, LogSettings settings, LogScheduler scheduler, AtomicLongArray counts) {
        String name = "wal-" + exchange;
        Log log;
        try {
            log = scheduler == null ? Log.open(dir, name, settings) : Log.open(dir, name, settings, scheduler);
        } catch (StorageException e) {
            throw new InvalidSettingException("storage.dir", "cannot open the write-ahead log of exchange " + exchange + " in " + dir
                    + ": " + e.getMessage(), e);
        }
        return over(exchange, log, counts);
    }

    /** The write-ahead log of {@code exchange} over an open {@code log}: {@link #open}'s second half, and a test seam. */
    static ExchangeLog over(String exchange, Log log, AtomicLongArray counts) {
        ExchangeLog opened = new ExchangeLog(exchange, log, counts);
        log.addDurabilityListener(opened);
        return opened;
    }

    public Path directory() {
        return log.directory();
    }

    /** The flush policy under which a record counts as durable. */
    public FlushPolicy flushPolicy() {
        return log.settings().flush();
    }

    // ---- at open, before the ring starts ----

    /**
     * Lines the log up with the Parquet files, whose offsets end (exclusively) at {@code parquetEnd}:
     * trims what they already hold; makes an empty log (or one wholly behind them) continue at
     * {@code parquetEnd}; and finds the records they lack, cut into batches of at most {@code cap}
     * records or about {@code maxBatchBytes} bytes, to be written from the log.
     */
    public Recovered recover(long parquetEnd, int cap, long maxBatchBytes) {
        long start = log.logStartOffset();
        long end = log.nextOffset();
        if (end <= parquetEnd) {
            if (end > start) {
                log.deleteRecordsBefore(end);
            }
            if (parquetEnd > end) {
                log.startAt(parquetEnd);
                LOG.info("exchange {}: write-ahead log {} continues at offset {}, after the Parquet files", exchange, directory(),
                        parquetEnd);
            }
            return new Recovered(List.of(), Long.MIN_VALUE);
        }
        if (start < parquetEnd) {
            log.deleteRecordsBefore(parquetEnd);
        } else if (start > parquetEnd) {
            LOG.warn("exchange {}: offsets {}..{} are neither in the Parquet files nor in the write-ahead log {} (was the newest "
                    + "file unreadable, or were files removed?); continuing with what the log holds", exchange, parquetEnd, start - 1,
                    directory());
        }
        Recovered recovered = scan(Math.max(start, parquetEnd), cap, maxBatchBytes);
        LOG.info("exchange {}: {} records of the write-ahead log (offsets {}..{}) are not in Parquet yet; they are written from the log",
                exchange, recovered.records(), Math.max(start, parquetEnd), end - 1);
        return recovered;
    }

    private Recovered scan(long from, int cap, long maxBatchBytes) {
        List<LoggedRange> ranges = new ArrayList<>();
        long first = -1;
        long firstTs = 0;
        long last = -1;
        long lastTs = Long.MIN_VALUE;
        long bytes = 0;
        try (LogCursor cursor = log.cursor(from)) {
            while (cursor.next()) {
                long offset = cursor.offset();
                if (first >= 0 && offset != last + 1) {
                    ranges.add(new LoggedRange(first, last, firstTs, lastTs));
                    first = -1;
                }
                if (first < 0) {
                    first = offset;
                    firstTs = cursor.timestamp();
                    bytes = 0;
                }
                last = offset;
                lastTs = cursor.timestamp();
                bytes += 16 + cursor.payloadBytes();
                if (last - first + 1 >= cap || bytes >= maxBatchBytes) {
                    ranges.add(new LoggedRange(first, last, firstTs, lastTs));
                    first = -1;
                }
            }
        }
        if (first >= 0) {
            ranges.add(new LoggedRange(first, last, firstTs, lastTs));
        }
        return new Recovered(ranges, lastTs);
    }

    /** The offset the next appended record gets. */
    public long nextOffset() {
        return log.nextOffset();
    }

    // ---- the ring thread ----

    @Override
    public long append(long ts, String topic, byte[] payload) {
        if (!available || unwritable && !retryWrite()) {
            return -1;
        }
        try {
            return log.append(ts, null, payload, topic);
        } catch (RecordTooLargeException | IllegalArgumentException e) {
            errors.error("a message on topic '" + topic + "' (" + payload.length + " bytes, ts " + ts
                    + ") cannot be written to the write-ahead log and is refused", e);
            return -1;
        } catch (LogWriteException e) {
            writeFailed(e);
            return -1;
        } catch (RuntimeException | Error e) {
            fail(e);
            return -1;
        }
    }

    @Override
    public void commit() {
        receiptsCommitted = receiptsAdded;
        if (!available) {
            return;
        }
        if (unwritable) {
            retryWrite();
            return;
        }
        try {
            log.commit();
        } catch (LogWriteException e) {
            writeFailed(e);
            return;
        } catch (RuntimeException | Error e) {
            fail(e);
            return;
        }
        drainOnWriter();
    }

    /**
     * Runs the receipts the writer thread made durable: normally the listener already ran on this
     * thread, but a record written inside append (one larger than a batch) may have passed the high
     * watermark before its receipt came.
     */
    private void drainOnWriter() {
        if (!flusherDrains) {
            receipts.drain(log.highWatermark());
        }
    }

    /**
     * The unwritable log tries its failed write again once the retry is due; true when it is
     * writable again.
     */
    private boolean retryWrite() {
        long now = System.nanoTime();
        if (now - nextWriteRetry < 0) {
            return false;
        }
        try {
            log.commit();
        } catch (LogWriteException e) {
            nextWriteRetry = now + WRITE_RETRY_NANOS;
            lastFailure = e;
            return false;
        } catch (RuntimeException | Error e) {
            fail(e);
            return false;
        }
        unwritable = false;
        lastFailure = null;
        LOG.info("exchange {}: the write-ahead log in {} takes writes again; capturing again", exchange, directory());
        drainOnWriter();
        return true;
    }

    /** A write failed without harm: refuse what waits and every message until a retry succeeds. */
    private void writeFailed(LogWriteException e) {
        lastFailure = e;
        nextWriteRetry = System.nanoTime() + WRITE_RETRY_NANOS;
        if (!unwritable) {
            unwritable = true;
            counts.incrementAndGet(ExchangeCounter.WAL_WRITE_FAILURES.ordinal());
            LOG.error("exchange {}: cannot write to the write-ahead log in {} ({}); refusing messages, and not acknowledging "
                    + "as stored those waiting for it, until a write succeeds again (tried every {} ms)", exchange,
                    directory(), e.getMessage(), WRITE_RETRY_MS);
        }
        refuseWaiting();
    }

    /** Settles every waiting receipt: run for what is durable, refused for the rest. */
    private void refuseWaiting() {
        receipts.drain(log.highWatermark());
        counts.addAndGet(ExchangeCounter.WAL_RECEIPTS_REFUSED.ordinal(), receipts.refuseAll());
    }

    /** Commits only when a receipt waits; otherwise the open batch keeps filling (up to 1 MiB). */
    @Override
    public void endOfBatch() {
        if (receiptsAdded != receiptsCommitted) {
            commit();
        }
    }

    @Override
    public void whenDurable(long offset, Runnable receipt) {
        receipts.add(offset, receipt);
        receiptsAdded++;
    }

    @Override
    public void refuse(Runnable receipt) {
        counts.incrementAndGet(ExchangeCounter.WAL_RECEIPTS_REFUSED.ordinal());
        Receipt.refuse(receipt);
    }

    @Override
    public boolean isAvailable() {
        return available && !unwritable;
    }

    /**
     * Why the log takes no messages now, or null when it does: offline for good after a failed
     * fsync (until a restart), or unwritable (a full disk) until a write succeeds again. Any thread.
     */
    public String problem() {
        Throwable failure = lastFailure;
        if (!available) {
            return "offline until restarted: " + (failure == null ? "it failed" : describe(failure));
        }
        if (unwritable) {
            return "refusing messages until a write succeeds again: " + (failure == null ? "a write failed" : describe(failure));
        }
        return null;
    }

    /** A storage failure's message says what failed; anything else is named by its class too. */
    private static String describe(Throwable failure) {
        return failure instanceof StorageException ? failure.getMessage() : failure.toString();
    }

    /**
     * The log went offline: refuse from now on, and settle every receipt still waiting. Besides an
     * I/O failure this is any unexpected exception or error on the ring thread (an
     * {@link InternalError} from a faulting mapped write, a bug): the log's state is then unknown,
     * so nothing after it may be taken for durable, and no receipt may be left waiting.
     */
    private void fail(Throwable e) {
        lastFailure = e;
        if (available) {
            available = false;
            counts.incrementAndGet(ExchangeCounter.WAL_FAILURES.ordinal());
            LOG.error("exchange {}: the write-ahead log in {} failed; until a restart every message is refused, and "
                    + "acknowledgements still waiting for it are refused", exchange, directory(), e);
        }
        refuseWaiting();
    }

    // ---- the log's threads ----

    @Override
    public void onDurable(long highWatermark) {
        receipts.drain(highWatermark);
        advanced.accept(highWatermark);
    }

    /** Also tells {@code listener} each time the high watermark moves, after the receipts ran (on the same thread). */
    public void onAdvance(LongConsumer listener) {
        this.advanced = listener;
    }

    // ---- any thread ----

    /** The first offset the log still holds: everything below it is in Parquet (or was given up). */
    public long startOffset() {
        return log.logStartOffset();
    }

    /** Exclusive end of what is durable (and readable) in the log. */
    public long highWatermark() {
        return log.highWatermark();
    }

    /** Whether the log durably holds every record up to {@code lastOffset} or will once it is closed. */
    public boolean holds(long lastOffset) {
        return available && !unwritable || lastOffset < log.highWatermark();
    }

    /** Never trims below {@code offset} again in this run: its records could not be written to Parquet. */
    public synchronized void hold(long offset) {
        floor = Math.min(floor, offset);
    }

    /**
     * Trims the log below {@code offset}, the lowest offset that is still only here (bounded by
     * anything {@link #hold held} and by the high watermark). Never fails the caller: a failure is
     * logged and the records stay.
     */
    public void trim(long offset) {
        long to;
        synchronized (this) {
            to = Math.min(offset, floor);
        }
        to = Math.min(to, log.highWatermark());
        if (!available || closed || to <= log.logStartOffset()) {
            return; // a query that finishes after the exchange closed trims nothing
        }
        try {
            log.deleteRecordsBefore(to);
        } catch (StorageException e) {
            errors.error("cannot trim the write-ahead log " + directory() + " below offset " + to, e);
        }
    }

    /** The records of a range, read back from the log (they must be below the high watermark and not trimmed). */
    public Batch.Contents read(LoggedRange range) throws IOException {
        int n = range.count();
        long[] ts = new long[n];
        long[] offsets = new long[n];
        String[] topics = new String[n];
        byte[][] payloads = new byte[n][];
        int i = 0;
        try (LogCursor cursor = log.cursor(range.firstOffset())) {
            while (i < n && cursor.next()) {
                long offset = cursor.offset();
                if (offset != range.firstOffset() + i) {
                    throw new IOException("write-ahead log " + directory() + " of exchange " + exchange + ": offset " + offset
                            + " found where " + (range.firstOffset() + i) + " was expected");
                }
                List<String> tags = cursor.tags();
                if (tags.isEmpty()) {
                    throw new IOException("write-ahead log " + directory() + " of exchange " + exchange + ": record " + offset
                            + " has no topic tag");
                }
                byte[] value = cursor.value();
                ts[i] = cursor.timestamp();
                offsets[i] = offset;
                topics[i] = tags.get(0);
                payloads[i] = value == null ? new byte[0] : value;
                i++;
            }
        } catch (StorageException e) {
            throw new IOException("cannot read offsets " + range.firstOffset() + ".." + range.lastOffset() + " of exchange " + exchange
                    + " from its write-ahead log " + directory() + ": " + e.getMessage(), e);
        }
        if (i != n) {
            throw new IOException("write-ahead log " + directory() + " of exchange " + exchange + " holds " + i + " of the " + n
                    + " records of offsets " + range.firstOffset() + ".." + range.lastOffset());
        }
        return new Batch.Contents(ts, offsets, topics, payloads, n);
    }

    /** A counter of the underlying log (appends, fsyncs, segments...). */
    public long counter(StorageCounter counter) {
        return log.counters().get(counter);
    }

    /** Receipts waiting for their offsets to become durable. */
    public long waitingReceipts() {
        return receipts.waiting();
    }

    /**
     * Closes the log cleanly (after the ring stopped and the store wrote what it could): writes
     * and fsyncs everything, which runs the last receipts. Any receipt still waiting then runs too.
     */
    @Override
    public void close() {
        closed = true;
        try {
            log.close();
        } finally {
            refuseAtClose(); // also when the close failed: no receipt is left waiting
        }
    }

    private void refuseAtClose() {
        receipts.drain(log.highWatermark());
        long refused = receipts.refuseAll();
        if (refused > 0) {
            counts.addAndGet(ExchangeCounter.WAL_RECEIPTS_REFUSED.ordinal(), refused);
            LOG.warn("exchange {}: {} acknowledgements were refused at close: their messages were not durable", exchange, refused);
        }
    }

    @Override
    public String toString() {
        return "ExchangeLog[" + exchange + ", " + log + "]";
    }
}
