package io.sluice.kafka.api;

import java.util.List;

import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;

import io.sluice.kafka.KafkaAuthorizer;
import io.sluice.kafka.codec.LegacyRequests;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.storage.StoredRecord;
import io.sluice.streams.Stream;

/**
 * ListOffsets (v0 through {@link LegacyRequests}): per partition the offset for a timestamp.
 * <ul>
 *  <li>-2 (earliest) and -4 (earliest local): the log start offset, timestamp -1;</li>
 *  <li>-1 (latest): the high watermark, timestamp -1;</li>
 *  <li>-3 (max timestamp): the last record and its timestamp (stream timestamps are capture or
 *      producer times, which only grow in practice; -1/-1 for an empty partition);</li>
 *  <li>-5 (latest tiered): -1/-1, there is no tiered storage;</li>
 *  <li>a timestamp: the first offset whose record has a timestamp at or after it, found through
 *      the time index, with that record's real timestamp; -1/-1 when no record is that late.</li>
 * </ul>
 */
final class OffsetsHandler {
    private static final long LATEST = -1;
    private static final long EARLIEST = -2;
    private static final long MAX_TIMESTAMP = -3;
    private static final long EARLIEST_LOCAL = -4;
    private static final long LATEST_TIERED = -5;

    private final KafkaTopics topics;
    private final KafkaAuthorizer authorizer;

    OffsetsHandler(KafkaTopics topics, KafkaAuthorizer authorizer) {
        this.topics = topics;
        this.authorizer = authorizer;
    }

    ListOffsetsResponseData listOffsets(Request request) {
        ListOffsetsRequestData data = request.as(ListOffsetsRequest.class).data();
        ClientIdentity identity = request.identity();
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        for (ListOffsetsRequestData.ListOffsetsTopic topic : data.topics()) {
            ListOffsetsTopicResponse answer = new ListOffsetsTopicResponse().setName(topic.name());
            for (ListOffsetsRequestData.ListOffsetsPartition partition : topic.partitions()) {
                LegacyRequests.Offset offset = lookup(identity, topic.name(), partition.partitionIndex(), partition.timestamp());
                ListOffsetsPartitionResponse result = new ListOffsetsPartitionResponse()
                        .setPartitionIndex(partition.partitionIndex())
                        .setErrorCode(offset.error().code())
                        .setOffset(offset.offset())
                        .setTimestamp(offset.error() == Errors.NONE ? timestampOf(topic.name(), partition, offset) : -1);
                if (request.version() >= 4 && offset.error() == Errors.NONE) {
                    result.setLeaderEpoch(Node.LEADER_EPOCH);
                }
                answer.partitions().add(result);
            }
            response.topics().add(answer);
        }
        return response;
    }

    /** The timestamp to answer with: -1 for the special lookups, else the found record's own. */
    private long timestampOf(String topic, ListOffsetsRequestData.ListOffsetsPartition partition,
                             LegacyRequests.Offset offset) {
        long timestamp = partition.timestamp();
        if (offset.offset() < 0 || timestamp == LATEST || timestamp == EARLIEST || timestamp == EARLIEST_LOCAL) {
            return -1;
        }
        List<StoredRecord> records = topics.byName(topic).read(partition.partitionIndex(), offset.offset(), 1, 1);
        return records.isEmpty() ? -1 : records.get(0).timestamp();
    }

    /** The offset for a timestamp, with the error to answer; also what ListOffsets v0 answers. */
    LegacyRequests.Offset lookup(ClientIdentity identity, String topic, int partition, long timestamp) {
        Stream stream = topics.byName(topic);
        if (stream == null || partition < 0 || partition >= stream.partitions()) {
            return new LegacyRequests.Offset(Errors.UNKNOWN_TOPIC_OR_PARTITION, -1);
        }
        if (!authorizer.mayRead(identity, topic)) {
            return new LegacyRequests.Offset(Errors.TOPIC_AUTHORIZATION_FAILED, -1);
        }
        long end = stream.endOffset(partition);
        long offset;
        if (timestamp == LATEST) {
            offset = end;
        } else if (timestamp == EARLIEST || timestamp == EARLIEST_LOCAL) {
            offset = stream.startOffset(partition);
        } else if (timestamp == MAX_TIMESTAMP) {
            offset = end > stream.startOffset(partition) ? end - 1 : -1;
        } else if (timestamp == LATEST_TIERED) {
            offset = -1;
        } else if (timestamp < 0) {
            return new LegacyRequests.Offset(Errors.INVALID_REQUEST, -1);
        } else {
            long found = stream.offsetForTimestamp(partition, timestamp);
            offset = found >= end ? -1 : found;
        }
        return new LegacyRequests.Offset(Errors.NONE, offset);
    }
}
