package io.sluice.kafka.api;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;

import io.sluice.kafka.KafkaAuthorizer;
import io.sluice.kafka.group.GroupCoordinator;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.storage.OffsetOutOfRangeException;
import io.sluice.streams.Stream;

/**
 * The consumer-group APIs: FindCoordinator (this server coordinates every group; transaction and
 * share coordinators do not exist: INVALID_REQUEST), the membership APIs (handed to the
 * {@link GroupCoordinator}), and OffsetCommit and OffsetFetch, whose offsets are the storage
 * adapter's group offsets, durable before the commit is answered. Committing and fetching need
 * read permission on the topic. Offset metadata strings are not kept (fetched back as empty).
 */
final class GroupHandler {
    private static final byte GROUP_KEY = 0;

    private final KafkaTopics topics;
    private final KafkaAuthorizer authorizer;
    private final GroupCoordinator coordinator;

    GroupHandler(KafkaTopics topics, KafkaAuthorizer authorizer, GroupCoordinator coordinator) {
        this.topics = topics;
        this.authorizer = authorizer;
        this.coordinator = coordinator;
    }

    FindCoordinatorResponseData findCoordinator(Request request, Node node) {
        FindCoordinatorRequestData data = request.as(FindCoordinatorRequest.class).data();
        boolean group = data.keyType() == GROUP_KEY;
        Errors error = group ? Errors.NONE : Errors.INVALID_REQUEST;
        String message = group ? null : "only group coordinators exist: transactions and share groups are not supported";
        FindCoordinatorResponseData response = new FindCoordinatorResponseData();
        if (request.version() < 4) {
            return response.setErrorCode(error.code()).setErrorMessage(message)
                    .setNodeId(group ? node.id() : -1).setHost(group ? node.host() : "").setPort(group ? node.port() : -1);
        }
        for (String key : data.coordinatorKeys()) {
            response.coordinators().add(new FindCoordinatorResponseData.Coordinator().setKey(key)
                    .setErrorCode(error.code()).setErrorMessage(message)
                    .setNodeId(group ? node.id() : -1).setHost(group ? node.host() : "").setPort(group ? node.port() : -1));
        }
        return response;
    }

    CompletableFuture<JoinGroupResponseData> join(Request request) {
        return coordinator.join(request.as(JoinGroupRequest.class).data(), request.version(), request.header().clientId(),
                host(request));
    }

    private static String host(Request request) {
        String address = String.valueOf(request.session().address());
        return address.startsWith("/") ? address : "/" + address;
    }

    CompletableFuture<SyncGroupResponseData> sync(Request request) {
        return coordinator.sync(request.as(SyncGroupRequest.class).data());
    }

    HeartbeatResponseData heartbeat(Request request) {
        HeartbeatRequestData data = request.as(HeartbeatRequest.class).data();
        return coordinator.heartbeat(data.groupId(), data.memberId(), data.generationId());
    }

    LeaveGroupResponseData leave(Request request) {
        return coordinator.leave(request.as(LeaveGroupRequest.class).data(), request.version());
    }

    DescribeGroupsResponseData describe(Request request) {
        DescribeGroupsRequestData data = request.as(DescribeGroupsRequest.class).data();
        return coordinator.describe(data.groups());
    }

    ListGroupsResponseData list(Request request) {
        return coordinator.list(request.as(ListGroupsRequest.class).data(), topics.streams().groups());
    }

    OffsetCommitResponseData commit(Request request) {
        OffsetCommitRequestData data = request.as(OffsetCommitRequest.class).data();
        ClientIdentity identity = request.identity();
        Errors groupError = coordinator.commitAllowed(data.groupId(), data.memberId(), data.generationIdOrMemberEpoch());
        OffsetCommitResponseData response = new OffsetCommitResponseData();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic topic : data.topics()) {
            Stream stream = topics.find(topic.name(), topic.topicId());
            OffsetCommitResponseTopic answer = new OffsetCommitResponseTopic().setName(topic.name()).setTopicId(topic.topicId());
            for (OffsetCommitRequestData.OffsetCommitRequestPartition partition : topic.partitions()) {
                Errors error = groupError != Errors.NONE ? groupError
                        : commit(identity, data.groupId(), stream, partition.partitionIndex(), partition.committedOffset());
                answer.partitions().add(new OffsetCommitResponsePartition().setPartitionIndex(partition.partitionIndex())
                        .setErrorCode(error.code()));
            }
            response.topics().add(answer);
        }
        return response;
    }

    private Errors commit(ClientIdentity identity, String group, Stream stream, int partition, long offset) {
        Errors error = check(identity, stream, partition);
        if (error != Errors.NONE) {
            return error;
        }
        try {
            stream.commitOffset(group, partition, offset);
            return Errors.NONE;
        } catch (OffsetOutOfRangeException e) {
            return Errors.OFFSET_OUT_OF_RANGE;
        }
    }

    private Errors check(ClientIdentity identity, Stream stream, int partition) {
        if (stream == null || partition < 0 || partition >= stream.partitions()) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        return authorizer.mayRead(identity, stream.name()) ? Errors.NONE : Errors.TOPIC_AUTHORIZATION_FAILED;
    }

    OffsetFetchResponseData fetch(Request request) {
        OffsetFetchRequestData data = request.as(OffsetFetchRequest.class).data();
        ClientIdentity identity = request.identity();
        OffsetFetchResponseData response = new OffsetFetchResponseData();
        if (request.version() < 8) {
            List<Wanted> wanted = new ArrayList<>();
            if (data.topics() != null) {
                for (OffsetFetchRequestData.OffsetFetchRequestTopic topic : data.topics()) {
                    wanted.add(new Wanted(topic.name(), topic.partitionIndexes()));
                }
            }
            for (Committed committed : committed(identity, data.groupId(), data.topics() == null ? null : wanted)) {
                OffsetFetchResponseData.OffsetFetchResponseTopic topic = response.topics().stream()
                        .filter(t -> t.name().equals(committed.topic())).findFirst().orElse(null);
                if (topic == null) {
                    topic = new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(committed.topic());
                    response.topics().add(topic);
                }
                topic.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                        .setPartitionIndex(committed.partition()).setCommittedOffset(committed.offset())
                        .setMetadata("").setErrorCode(committed.error().code()));
            }
            return response;
        }
        for (OffsetFetchRequestData.OffsetFetchRequestGroup group : data.groups()) {
            List<Wanted> wanted = new ArrayList<>();
            if (group.topics() != null) {
                for (OffsetFetchRequestData.OffsetFetchRequestTopics topic : group.topics()) {
                    wanted.add(new Wanted(topic.name(), topic.partitionIndexes()));
                }
            }
            OffsetFetchResponseData.OffsetFetchResponseGroup answer = new OffsetFetchResponseData.OffsetFetchResponseGroup()
                    .setGroupId(group.groupId());
            for (Committed committed : committed(identity, group.groupId(), group.topics() == null ? null : wanted)) {
                OffsetFetchResponseData.OffsetFetchResponseTopics topic = answer.topics().stream()
                        .filter(t -> t.name().equals(committed.topic())).findFirst().orElse(null);
                if (topic == null) {
                    topic = new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(committed.topic());
                    answer.topics().add(topic);
                }
                topic.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                        .setPartitionIndex(committed.partition()).setCommittedOffset(committed.offset())
                        .setMetadata("").setErrorCode(committed.error().code()));
            }
            response.groups().add(answer);
        }
        return response;
    }

    private record Wanted(String topic, List<Integer> partitions) {
    }

    private record Committed(String topic, int partition, long offset, Errors error) {
    }

    /** The committed offsets asked for, or (for null) every one the group has on topics the client may read. */
    private List<Committed> committed(ClientIdentity identity, String group, List<Wanted> wanted) {
        List<Committed> found = new ArrayList<>();
        if (wanted == null) {
            for (Stream stream : topics.streams().all()) {
                if (!authorizer.mayRead(identity, stream.name())) {
                    continue;
                }
                for (int p = 0; p < stream.partitions(); p++) {
                    OptionalLong offset = stream.committedOffset(group, p);
                    if (offset.isPresent()) {
                        found.add(new Committed(stream.name(), p, offset.getAsLong(), Errors.NONE));
                    }
                }
            }
            return found;
        }
        for (Wanted topic : wanted) {
            Stream stream = topics.byName(topic.topic());
            for (int partition : topic.partitions()) {
                Errors error = check(identity, stream, partition);
                long offset = error == Errors.NONE ? stream.committedOffset(group, partition).orElse(-1) : -1;
                found.add(new Committed(topic.topic(), partition, offset, error));
            }
        }
        return found;
    }
}
