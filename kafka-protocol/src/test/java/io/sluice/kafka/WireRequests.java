package io.sluice.kafka;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

import io.sluice.kafka.api.KafkaTopics;

/**
 * One request per API that exercises its answer: a topic and a partition where the API has them
 * (the stream {@code wire}, two partitions), so that partition-level fields are written at every
 * version, which is where a field set at a version that lacks it would fail.
 */
final class WireRequests {
    private static final String TOPIC = "wire";

    private WireRequests() {
    }

    static ApiMessage populated(ApiKeys key, short v) {
        return switch (key) {
            case API_VERSIONS -> new ApiVersionsRequestData().setClientSoftwareName("raw").setClientSoftwareVersion("1");
            case METADATA -> new MetadataRequestData().setTopics(v == 0 ? List.of() : null);
            case PRODUCE -> produce(v);
            case FETCH -> fetch(v);
            case LIST_OFFSETS -> listOffsets();
            case OFFSET_COMMIT -> offsetCommit(v);
            case OFFSET_FETCH -> offsetFetch(v);
            case FIND_COORDINATOR -> v < 4 ? new FindCoordinatorRequestData().setKey("wire-group")
                    : new FindCoordinatorRequestData().setCoordinatorKeys(List.of("wire-group"));
            case JOIN_GROUP -> join();
            case SYNC_GROUP -> new SyncGroupRequestData().setGroupId("wire-group").setMemberId("nobody").setGenerationId(1)
                    .setProtocolType(v >= 5 ? "consumer" : null).setProtocolName(v >= 5 ? "range" : null);
            case HEARTBEAT -> new HeartbeatRequestData().setGroupId("wire-group").setMemberId("nobody").setGenerationId(1);
            case LEAVE_GROUP -> v < 3 ? new LeaveGroupRequestData().setGroupId("wire-group").setMemberId("nobody")
                    : new LeaveGroupRequestData().setGroupId("wire-group")
                    .setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId("nobody")));
            case DESCRIBE_GROUPS -> new DescribeGroupsRequestData().setGroups(List.of("wire-group", "unknown-group"));
            case CREATE_TOPICS -> createTopics();
            case DELETE_TOPICS -> v < 6 ? new DeleteTopicsRequestData().setTopicNames(List.of("no-such-topic"))
                    : new DeleteTopicsRequestData().setTopics(List.of(
                    new DeleteTopicsRequestData.DeleteTopicState().setName("no-such-topic")));
            case INIT_PRODUCER_ID -> new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(1);
            case DESCRIBE_CONFIGS -> new DescribeConfigsRequestData().setResources(List.of(
                    new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2).setResourceName(TOPIC),
                    new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 4).setResourceName("0")));
            default -> ApiMessageType.fromApiKey(key.id).newRequest();
        };
    }

    private static ApiMessage produce(short v) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData();
        if (v >= 13) {
            topic.setTopicId(KafkaTopics.topicId(TOPIC));
        } else {
            topic.setName(TOPIC);
        }
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(topic);
        return new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000).setTopicData(topics);
    }

    private static ApiMessage fetch(short v) {
        FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic()
                .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                        .setPartitionMaxBytes(1 << 16)));
        if (v >= 13) {
            topic.setTopicId(KafkaTopics.topicId(TOPIC));
        } else {
            topic.setTopic(TOPIC);
        }
        return new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20)
                .setTopics(List.of(topic));
    }

    private static ApiMessage listOffsets() {
        return new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                .setName(TOPIC).setPartitions(List.of(
                        new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1),
                        new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(1).setTimestamp(0)))));
    }

    private static ApiMessage offsetCommit(short v) {
        return new OffsetCommitRequestData().setGroupId("wire-simple").setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(TOPIC)
                        .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(0).setCommittedMetadata("")))));
    }

    private static ApiMessage offsetFetch(short v) {
        if (v < 8) {
            return new OffsetFetchRequestData().setGroupId("wire-simple").setTopics(List.of(
                    new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(TOPIC).setPartitionIndexes(List.of(0, 1))));
        }
        return new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                .setGroupId("wire-simple").setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                        .setName(TOPIC).setPartitionIndexes(List.of(0, 1))))));
    }

    private static ApiMessage join() {
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(new byte[] {1}));
        // An invalid session timeout: answered at once, without creating a member that would linger.
        return new JoinGroupRequestData().setGroupId("wire-group").setSessionTimeoutMs(1).setRebalanceTimeoutMs(1000)
                .setMemberId("").setProtocolType("consumer").setProtocols(protocols);
    }

    private static ApiMessage createTopics() {
        CreateTopicsRequestData.CreatableTopicCollection topics = new CreateTopicsRequestData.CreatableTopicCollection();
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName("validated-only").setNumPartitions(2)
                .setReplicationFactor((short) 1));
        return new CreateTopicsRequestData().setTopics(topics).setValidateOnly(true).setTimeoutMs(5000);
    }
}
