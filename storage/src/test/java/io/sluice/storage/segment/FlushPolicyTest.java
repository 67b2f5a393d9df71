package io.sluice.storage.segment;

import static io.sluice.storage.segment.TestLogs.small;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.storage.FlushPolicy;
import io.sluice.storage.Record;
import io.sluice.storage.StorageCounter;
import io.sluice.testing.Eventually;

class FlushPolicyTest {
    @TempDir
    Path dir;

    @Test
    void underAlwaysCommitReturnsAtOnceAndTheListenerHearsWhenDurable() throws Exception {
        try (SegmentLog log = TestLogs.open(dir, small().toBuilder().flush(FlushPolicy.ALWAYS).build())) {
            AtomicLong heard = new AtomicLong();
            CountDownLatch durable = new CountDownLatch(1);
            log.addDurabilityListener(hw -> {
                heard.set(hw);
                if (hw >= 100) {
                    durable.countDown();
                }
            });
            for (int i = 0; i < 100; i++) {
                log.append(i, null, new byte[100], "a/topic");
            }
            long end = log.commit();
            assertEquals(100, end);
            assertTrue(durable.await(10, TimeUnit.SECONDS), "the listener heard the high watermark reach 100");
            assertTrue(log.flushedOffset() >= 100, "durable means fsynced under always");
            assertTrue(log.awaitDurable(99, 1, TimeUnit.SECONDS));
            assertEquals(100, log.read(0, 1000, Integer.MAX_VALUE).size());
        }
    }

    @Test
    void concurrentAppendersUnderAlwaysReturnOnlyOnceTheirRecordIsDurable() throws Exception {
        int threads = 16;
        int perThread = 40;
        try (SegmentLog log = TestLogs.open(dir, small().toBuilder().flush(FlushPolicy.ALWAYS).build())) {
            SharedAppender appender = new SharedAppender(log);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            Set<Long> offsets = ConcurrentHashMap.newKeySet();
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        long offset = appender.append(Record.ofValue(new byte[1024], System.currentTimeMillis()));
                        assertTrue(log.flushedOffset() > offset, "offset " + offset + " returned before it was fsynced");
                        assertTrue(log.highWatermark() > offset);
                        offsets.add(offset);
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertEquals(threads * perThread, offsets.size(), "every offset unique");
            assertEquals(threads * perThread - 1L, offsets.stream().mapToLong(Long::longValue).max().orElseThrow());
            assertTrue(log.counters().get(StorageCounter.FSYNCS) <= threads * perThread);
        }
    }

    @Test
    void appendersWaitingOnAnFsyncShareTheNextOne() throws Exception {
        int followers = 8;
        try (SegmentLog log = TestLogs.open(dir, small().toBuilder().flush(FlushPolicy.ALWAYS).build())) {
            SharedAppender appender = new SharedAppender(log);
            CountDownLatch leaderInFsync = new CountDownLatch(1);
            CountDownLatch followersAppended = new CountDownLatch(1);
            log.beforeFsync(() -> {
                if (leaderInFsync.getCount() > 0) {
                    leaderInFsync.countDown();
                    await(followersAppended);
                }
            });
            ExecutorService pool = Executors.newFixedThreadPool(followers + 1);
            Future<Long> leader = pool.submit(() -> appender.append(Record.ofValue("leader".getBytes(), 1)));
            assertTrue(leaderInFsync.await(10, TimeUnit.SECONDS));
            List<Future<Long>> rest = new ArrayList<>();
            for (int i = 0; i < followers; i++) {
                rest.add(pool.submit(() -> appender.append(Record.ofValue("follower".getBytes(), 2))));
            }
            Eventually.await(() -> log.nextOffset() == followers + 1, "every follower appended");
            long fsyncsBefore = log.counters().get(StorageCounter.FSYNCS);
            followersAppended.countDown();
            assertEquals(0L, leader.get(10, TimeUnit.SECONDS));
            for (Future<Long> follower : rest) {
                assertTrue(follower.get(10, TimeUnit.SECONDS) > 0);
            }
            pool.shutdown();
            assertEquals(fsyncsBefore + 2, log.counters().get(StorageCounter.FSYNCS),
                    "the leader's fsync, then one fsync for all eight followers");
            assertEquals(2, log.counters().get(StorageCounter.BATCHES_WRITTEN), "and one batch for them");
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void intervalFlushesAfterFlushMessagesRecords() throws Exception {
        try (SegmentLog log = TestLogs.open(dir, small().toBuilder().flush(FlushPolicy.INTERVAL)
                .flushIntervalMs(3_600_000).flushMessages(50).build())) {
            for (int i = 0; i < 49; i++) {
                log.append(i, null, new byte[10]);
            }
            log.commit();
            assertEquals(49, log.highWatermark(), "readable at once: durable under interval means written");
            assertEquals(0, log.counters().get(StorageCounter.FSYNCS));
            log.append(50, null, new byte[10]);
            log.commit();
            Eventually.await(() -> log.flushedOffset() == 50, "50 records are fsynced");
        }
    }

    @Test
    void intervalFlushesOnItsTimerWithoutFurtherWrites() throws Exception {
        try (SegmentLog log = TestLogs.open(dir, small().toBuilder().flush(FlushPolicy.INTERVAL).flushIntervalMs(20).build())) {
            log.append(1, null, new byte[10]);
            log.commit();
            Eventually.await(() -> log.flushedOffset() == 1, "the timer fsyncs the record");
        }
    }

    @Test
    void noneMakesRecordsReadableAtCommitAndLeavesFsyncToRolls() {
        try (SegmentLog log = TestLogs.open(dir, small())) {
            for (int i = 0; i < 10; i++) {
                log.append(i, null, new byte[10]);
            }
            log.commit();
            assertEquals(10, log.highWatermark());
            assertEquals(0, log.counters().get(StorageCounter.FSYNCS));
            assertEquals(0, log.flushedOffset());
        }
    }
}
