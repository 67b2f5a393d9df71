package io.sluice.kafka.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.FetchRequest;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.kafka.KafkaAuthorizer;
import io.sluice.kafka.codec.RecordBatchWriter;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.storage.OffsetOutOfRangeException;
import io.sluice.streams.AppendListener;
import io.sluice.streams.Stream;

/**
 * Fetch, with long polling. A fetch reads every partition it names; when that gives fewer than
 * {@code min_bytes} and no partition has an error, it waits: it registers with the partitions
 * and a timer, and gives up its request thread. An append to one of its partitions (this class is
 * the streams' {@link AppendListener}) runs it again on a request thread; at {@code max_wait_ms}
 * it is answered with whatever there is, possibly nothing. No thread, and never an event loop,
 * waits for data.
 *
 * <p>Every partition is answered: its records (uncompressed batches, never null, at least one
 * record when there is one even beyond the byte limits; a stored batch that holds Kafka records is
 * sent whole, with any records before the fetch offset, which consumers skip as they do Kafka's), its high watermark (the end of what is
 * durable), last stable offset (the same: there are no transactions) and log start offset.
 * Fetch sessions (KIP-227) are not kept: the session id is always 0, so clients send full requests.
 *
 * <p>The record batches are written into pooled direct buffers that the answer owns
 * ({@link Fetched#release}): the connection sends them without a copy and then releases them; a
 * read that is not sent (too little for {@code min_bytes}) releases them at once.
 */
final class FetchHandler implements AppendListener {
    /** Longest wait granted, whatever the client asks: bounds how long a waiting fetch lives. */
    private static final int MAX_WAIT_MS = 60_000;
    /** Records per partition per fetch; the byte limits normally stop first. */
    private static final int MAX_RECORDS = 100_000;
    /** A record's bytes as first guessed when sizing a batch; a batch of larger ones grows. */
    private static final int TYPICAL_RECORD_BYTES = 1024;

    private record PartitionKey(Stream stream, int partition) {
    }

    /** An answer and what frees the record buffers it refers to, to run once it is sent or dropped. */
    record Fetched(FetchResponseData response, Runnable release) {
    }

    private final KafkaTopics topics;
    private final KafkaAuthorizer authorizer;
    private final Executor requests;
    private final ScheduledExecutorService timer;
    private final Map<PartitionKey, Set<PendingFetch>> waiting = new ConcurrentHashMap<>();

    FetchHandler(KafkaTopics topics, KafkaAuthorizer authorizer, Executor requests, ScheduledExecutorService timer) {
        this.topics = topics;
        this.authorizer = authorizer;
        this.requests = requests;
        this.timer = timer;
    }

    CompletableFuture<Fetched> fetch(Request request) {
        FetchRequestData data = request.as(FetchRequest.class).data();
        if (data.sessionId() != 0) {
            return CompletableFuture.completedFuture(new Fetched(new FetchResponseData()
                    .setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code()).setSessionId(0), () -> { }));
        }
        PendingFetch fetch = new PendingFetch(data, targets(request, data));
        fetch.attempt(data.maxWaitMs() <= 0);
        return fetch.future;
    }

    /** One partition a fetch asks for, resolved, or the error it is answered with. */
    private record Target(FetchRequestData.FetchTopic topic, FetchRequestData.FetchPartition partition, Stream stream,
                          Errors error) {
    }

    private List<Target> targets(Request request, FetchRequestData data) {
        ClientIdentity identity = request.identity();
        List<Target> targets = new ArrayList<>();
        for (FetchRequestData.FetchTopic topic : data.topics()) {
            Stream stream = topics.find(topic.topic(), topic.topicId());
            Errors error = Errors.NONE;
            if (stream == null) {
                error = request.version() >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
            } else if (!authorizer.mayRead(identity, stream.name())) {
                error = Errors.TOPIC_AUTHORIZATION_FAILED;
            }
            for (FetchRequestData.FetchPartition partition : topic.partitions()) {
                Errors partitionError = error == Errors.NONE
                        && (partition.partition() < 0 || partition.partition() >= stream.partitions())
                        ? Errors.UNKNOWN_TOPIC_OR_PARTITION : error;
                targets.add(new Target(topic, partition, partitionError == Errors.NONE ? stream : null, partitionError));
            }
        }
        return targets;
    }

    @Override
    public void appended(Stream stream, int partition, long endOffset) {
        Set<PendingFetch> fetches = waiting.get(new PartitionKey(stream, partition));
        if (fetches != null) {
            for (PendingFetch fetch : fetches) {
                fetch.wake();
            }
        }
    }

    /** A fetch until it is answered: tried now, and again on appends and at its deadline. */
    private final class PendingFetch {
        final CompletableFuture<Fetched> future = new CompletableFuture<>();
        private final FetchRequestData data;
        private final List<Target> targets;
        private final AtomicBoolean done = new AtomicBoolean();
        private final AtomicBoolean attemptQueued = new AtomicBoolean();
        private volatile ScheduledFuture<?> deadline;
        private boolean registered;

        PendingFetch(FetchRequestData data, List<Target> targets) {
            this.data = data;
            this.targets = targets;
        }

        /** Reads every partition; answers when there is enough, an error, or {@code last}; else waits. */
        void attempt(boolean last) {
            if (done.get()) {
                return;
            }
            Read read;
            try {
                read = read();
            } catch (RuntimeException e) {
                // Answered as any failed request is; a fetch left waiting here would hold its connection for good.
                finish(() -> future.completeExceptionally(e));
                return;
            }
            if (last || read.bytes >= Math.max(1, data.minBytes()) || read.error) {
                complete(read);
                return;
            }
            read.release();
            if (!registered) {
                registered = true;
                register();
            }
        }

        private void register() {
            for (Target target : targets) {
                waiting.computeIfAbsent(new PartitionKey(target.stream(), target.partition().partition()),
                        k -> ConcurrentHashMap.newKeySet()).add(this);
            }
            deadline = timer.schedule(() -> requests.execute(() -> attempt(true)),
                    Math.min(data.maxWaitMs(), MAX_WAIT_MS), TimeUnit.MILLISECONDS);
            // An append between the read and the registration would otherwise go unnoticed until the deadline.
            for (Target target : targets) {
                if (target.stream().endOffset(target.partition().partition()) > target.partition().fetchOffset()) {
                    wake();
                    return;
                }
            }
        }

        void wake() {
            if (!done.get() && attemptQueued.compareAndSet(false, true)) {
                requests.execute(() -> {
                    attemptQueued.set(false);
                    attempt(false);
                });
            }
        }

        private void complete(Read read) {
            if (!finish(() -> future.complete(new Fetched(read.response, read::release)))) {
                read.release();
            }
        }

        /** Answers once: leaves the partitions' waiting sets and the timer, then runs {@code answer}; false if already answered. */
        private boolean finish(Runnable answer) {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            if (registered) {
                for (Target target : targets) {
                    PartitionKey key = new PartitionKey(target.stream(), target.partition().partition());
                    Set<PendingFetch> fetches = waiting.get(key);
                    if (fetches != null) {
                        fetches.remove(this);
                        if (fetches.isEmpty()) {
                            waiting.remove(key, fetches);
                        }
                    }
                }
                ScheduledFuture<?> timeout = deadline;
                if (timeout != null) {
                    timeout.cancel(false);
                }
            }
            answer.run();
            return true;
        }

        private Read read() {
            FetchResponseData response = new FetchResponseData().setSessionId(0);
            Read read = new Read(response);
            int budget = data.maxBytes() <= 0 ? Integer.MAX_VALUE : data.maxBytes();
            FetchableTopicResponse current = null;
            FetchRequestData.FetchTopic currentTopic = null;
            for (Target target : targets) {
                if (target.topic() != currentTopic) {
                    currentTopic = target.topic();
                    current = new FetchableTopicResponse().setTopic(currentTopic.topic()).setTopicId(currentTopic.topicId());
                    response.responses().add(current);
                }
                PartitionData partition = new PartitionData()
                        .setPartitionIndex(target.partition().partition())
                        .setRecords(MemoryRecords.EMPTY)
                        .setAbortedTransactions(data.isolationLevel() == 1 ? new ArrayList<>() : null);
                current.partitions().add(partition);
                if (target.error() != Errors.NONE) {
                    partition.setErrorCode(target.error().code()).setHighWatermark(-1);
                    read.error = true;
                    continue;
                }
                int size;
                try {
                    size = readPartition(target, partition, budget, read);
                } catch (RuntimeException e) {
                    read.release();
                    throw e;
                }
                if (size < 0) {
                    read.error = true;
                } else {
                    read.bytes += size;
                    budget -= size;
                }
            }
            return read;
        }

        /** Fills one partition's answer; returns the record bytes, or -1 for an error. */
        private int readPartition(Target target, PartitionData answer, int budget, Read read) {
            boolean first = read.bytes == 0;
            Stream stream = target.stream();
            int p = target.partition().partition();
            long offset = target.partition().fetchOffset();
            long end = stream.endOffset(p);
            long start = stream.startOffset(p);
            answer.setHighWatermark(end).setLastStableOffset(end).setLogStartOffset(start);
            if (offset < start || offset > end) {
                answer.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                return -1;
            }
            int limit = Math.min(target.partition().partitionMaxBytes(), budget);
            if (offset == end || (limit <= 0 && !first)) {
                return 0;
            }
            int maxBytes = Math.max(limit, 1);
            // Sized for what the read may return: a few waiting records must not reserve a whole partition's limit.
            RecordBatchWriter writer = new RecordBatchWriter(Math.min(maxBytes, (end - offset) * TYPICAL_RECORD_BYTES),
                    Node.LEADER_EPOCH, ByteBufAllocator.DEFAULT);
            try {
                stream.read(p, offset, MAX_RECORDS, maxBytes, writer);
            } catch (OffsetOutOfRangeException e) {
                writer.abandon();
                answer.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                return -1;
            } catch (RuntimeException e) {
                writer.abandon();
                throw e;
            }
            if (writer.count() == 0) {
                return 0;
            }
            ByteBuf batches = writer.finish();
            read.buffers.add(batches);
            answer.setRecords(MemoryRecords.readableRecords(batches.nioBuffer()));
            return batches.readableBytes();
        }
    }

    private static final class Read {
        final FetchResponseData response;
        final List<ByteBuf> buffers = new ArrayList<>(1);
        int bytes;
        boolean error;

        Read(FetchResponseData response) {
            this.response = response;
        }

        void release() {
            for (ByteBuf buffer : buffers) {
                buffer.release();
            }
            buffers.clear();
        }
    }
}
