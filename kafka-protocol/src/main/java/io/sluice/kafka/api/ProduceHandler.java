package io.sluice.kafka.api;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.ProduceRequest;

import io.sluice.kafka.KafkaAuthorizer;
import io.sluice.kafka.MqttPublisher;
import io.sluice.kafka.codec.ProduceException;
import io.sluice.kafka.codec.RecordBatchReader;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.storage.CleanupPolicy;
import io.sluice.streams.AppendResult;
import io.sluice.streams.Stream;

/**
 * Produce and InitProducerId. Each partition is checked and answered on its own: a bad partition
 * never fails the others. Its batches are decoded here (on a request thread: decompression and
 * CRCs are work for no event loop) and appended through the stream's appender; the response goes
 * out once every partition's batches are durable under its stream's flush policy, whatever
 * {@code acks} says (1 and all are the same on a single broker; 0 gets no response at all).
 * Records that were appended (not retried duplicates) go on to MQTT through the {@link MqttPublisher}.
 *
 * <p>Idempotence: InitProducerId hands out a producer id that was never handed out before, epoch 0;
 * the stream de-duplicates by producer id, epoch and sequence (see {@code ProducerBatch}).
 * Transactions are not supported: a transactional id gets INVALID_REQUEST.
 */
final class ProduceHandler {
    private final KafkaTopics topics;
    private final KafkaAuthorizer authorizer;
    private final MqttPublisher publisher;
    private final int maxRequestSize;

    ProduceHandler(KafkaTopics topics, KafkaAuthorizer authorizer, MqttPublisher publisher, int maxRequestSize) {
        this.topics = topics;
        this.authorizer = authorizer;
        this.publisher = publisher;
        this.maxRequestSize = maxRequestSize;
    }

    /** The response, or null for {@code acks = 0}. */
    CompletableFuture<ProduceResponseData> produce(Request request) {
        ProduceRequestData data = request.as(ProduceRequest.class).data();
        ClientIdentity identity = request.identity();
        ProduceResponseData response = new ProduceResponseData();
        List<CompletableFuture<Void>> appends = new ArrayList<>();
        for (ProduceRequestData.TopicProduceData topic : data.topicData()) {
            Stream stream = topics.find(topic.name(), topic.topicId());
            Errors topicError = topicError(request, topic, stream, identity, data.transactionalId());
            TopicProduceResponse answer = new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId());
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                PartitionProduceResponse result = new PartitionProduceResponse()
                        .setIndex(partition.index()).setBaseOffset(-1).setLogAppendTimeMs(-1).setLogStartOffset(-1);
                answer.partitionResponses().add(result);
                if (topicError != Errors.NONE) {
                    result.setErrorCode(topicError.code());
                } else if (partition.index() < 0 || partition.index() >= stream.partitions()) {
                    result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else {
                    appends.add(append(stream, partition, result, identity));
                }
            }
            response.responses().add(answer);
        }
        boolean answer = data.acks() != 0;
        return CompletableFuture.allOf(appends.toArray(new CompletableFuture<?>[0]))
                .thenApply(done -> answer ? response : null);
    }

    private Errors topicError(Request request, ProduceRequestData.TopicProduceData topic, Stream stream,
                              ClientIdentity identity, String transactionalId) {
        if (transactionalId != null) {
            return Errors.INVALID_REQUEST;
        }
        if (stream == null) {
            return request.version() >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        return authorizer.mayWrite(identity, stream.name()) ? Errors.NONE : Errors.TOPIC_AUTHORIZATION_FAILED;
    }

    /** Decodes one partition's batches and appends them in order; completes once all are answered. */
    private CompletableFuture<Void> append(Stream stream, ProduceRequestData.PartitionProduceData partition,
                                           PartitionProduceResponse result, ClientIdentity identity) {
        List<RecordBatchReader.Batch> batches;
        try {
            if (!(partition.records() instanceof MemoryRecords records)) {
                throw new ProduceException(Errors.INVALID_REQUEST, "a produce partition without records");
            }
            batches = RecordBatchReader.read(records, maxRequestSize,
                    stream.settings().log().cleanupPolicy() == CleanupPolicy.COMPACT);
        } catch (ProduceException e) {
            result.setErrorCode(e.error().code()).setErrorMessage(e.getMessage());
            return CompletableFuture.completedFuture(null);
        }
        int p = partition.index();
        List<CompletableFuture<AppendResult>> results = new ArrayList<>(batches.size());
        for (RecordBatchReader.Batch batch : batches) {
            CompletableFuture<AppendResult> appended = new CompletableFuture<>();
            stream.append(p, batch.records(), batch.producer(), outcome -> {
                if (outcome.status() == AppendResult.Status.APPENDED) {
                    publisher.publish(identity, stream, batch.records());
                }
                appended.complete(outcome);
            });
            results.add(appended);
        }
        return CompletableFuture.allOf(results.toArray(new CompletableFuture<?>[0])).thenRun(() -> {
            AppendResult first = results.get(0).join();
            result.setBaseOffset(first.baseOffset()).setLogStartOffset(stream.startOffset(p));
            for (CompletableFuture<AppendResult> each : results) {
                Errors error = error(each.join());
                if (error != Errors.NONE) {
                    result.setErrorCode(error.code()).setBaseOffset(-1).setErrorMessage(message(each.join()));
                    return;
                }
            }
        });
    }

    private static Errors error(AppendResult result) {
        return switch (result.status()) {
            case APPENDED, DUPLICATE -> Errors.NONE;
            case OUT_OF_ORDER_SEQUENCE -> Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
            case INVALID_PRODUCER_EPOCH -> Errors.INVALID_PRODUCER_EPOCH;
            case FAILED -> Errors.KAFKA_STORAGE_ERROR;
        };
    }

    private static String message(AppendResult result) {
        return result.error() == null ? null : result.error().getMessage();
    }

    InitProducerIdResponseData initProducerId(Request request) {
        InitProducerIdRequestData data = request.as(InitProducerIdRequest.class).data();
        if (data.transactionalId() != null) {
            return new InitProducerIdResponseData().setErrorCode(Errors.INVALID_REQUEST.code());
        }
        return new InitProducerIdResponseData().setProducerId(topics.streams().newProducerId()).setProducerEpoch((short) 0);
    }
}
