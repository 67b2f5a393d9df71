package io.sluice.kafka.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;

import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The coordinator of every classic consumer group (this server coordinates them all): JoinGroup,
 * SyncGroup, Heartbeat, LeaveGroup, DescribeGroups and ListGroups on {@link ConsumerGroup}s, and
 * whether an OffsetCommit may commit. A group's settled state (members, generation, protocol,
 * assignments) is saved in a {@link GroupStore} whenever it becomes Stable or Empty, beside the
 * committed offsets the storage adapter keeps, so that after a restart the members carry on with
 * their generation instead of joining again. Groups known only by their committed offsets are
 * listed as Empty.
 * Thread-safe.
 */
public final class GroupCoordinator {
    /** Kafka's {@code group.min.session.timeout.ms} and {@code group.max.session.timeout.ms}. */
    static final int MIN_SESSION_TIMEOUT_MS = 6_000;
    static final int MAX_SESSION_TIMEOUT_MS = 1_800_000;
    private static final String CLASSIC = "classic";

    private final ScheduledExecutorService timer;
    private final GroupStore store;
    private final Map<String, ConsumerGroup> groups = new ConcurrentHashMap<>();

    /**
     * A coordinator with the groups {@code store} saved: each Stable with its members, generation
     * and assignments, or Empty.
     *
     * @throws IllegalArgumentException naming the group when a saved state cannot be read
     */
    public GroupCoordinator(ScheduledExecutorService timer, GroupStore store) {
        this.timer = timer;
        this.store = store;
        store.load().forEach((groupId, saved) -> groups.put(groupId,
                ConsumerGroup.restore(groupId, timer, store, GroupRecord.decode(groupId, saved))));
    }

    private ConsumerGroup group(String groupId) {
        return groups.computeIfAbsent(groupId, id -> new ConsumerGroup(id, timer, store));
    }

    public CompletableFuture<JoinGroupResponseData> join(JoinGroupRequestData data, short version, String clientId,
                                                         String clientHost) {
        CompletableFuture<JoinGroupResponseData> answer = new CompletableFuture<>();
        if (data.groupId() == null || data.groupId().isEmpty()) {
            return answer(ConsumerGroup.joinError(Errors.INVALID_GROUP_ID, data.memberId()));
        }
        if (data.sessionTimeoutMs() < MIN_SESSION_TIMEOUT_MS || data.sessionTimeoutMs() > MAX_SESSION_TIMEOUT_MS) {
            return answer(ConsumerGroup.joinError(Errors.INVALID_SESSION_TIMEOUT, data.memberId()));
        }
        List<Member.Protocol> protocols = new ArrayList<>();
        for (JoinGroupRequestData.JoinGroupRequestProtocol protocol : data.protocols()) {
            protocols.add(new Member.Protocol(protocol.name(), protocol.metadata()));
        }
        int rebalanceTimeout = version >= 1 ? data.rebalanceTimeoutMs() : data.sessionTimeoutMs();
        ConsumerGroup.JoinRequest request = new ConsumerGroup.JoinRequest(data.memberId(), data.groupInstanceId(),
                clientId, clientHost, data.sessionTimeoutMs(), rebalanceTimeout, data.protocolType(), protocols, version);
        group(data.groupId()).join(request, answer::complete);
        return answer;
    }

    private static <T> CompletableFuture<T> answer(T response) {
        return CompletableFuture.completedFuture(response);
    }

    public CompletableFuture<SyncGroupResponseData> sync(SyncGroupRequestData data) {
        ConsumerGroup group = groups.get(data.groupId());
        if (group == null) {
            return answer(ConsumerGroup.syncError(Errors.UNKNOWN_MEMBER_ID));
        }
        Map<String, byte[]> assignments = new HashMap<>();
        for (SyncGroupRequestData.SyncGroupRequestAssignment assignment : data.assignments()) {
            assignments.put(assignment.memberId(), assignment.assignment());
        }
        CompletableFuture<SyncGroupResponseData> answer = new CompletableFuture<>();
        group.sync(data.memberId(), data.generationId(), data.protocolType(), data.protocolName(), assignments,
                answer::complete);
        return answer;
    }

    public HeartbeatResponseData heartbeat(String groupId, String memberId, int generationId) {
        ConsumerGroup group = groups.get(groupId);
        Errors error = group == null ? Errors.UNKNOWN_MEMBER_ID : group.heartbeat(memberId, generationId);
        return new HeartbeatResponseData().setErrorCode(error.code());
    }

    public LeaveGroupResponseData leave(LeaveGroupRequestData data, short version) {
        List<String> memberIds = new ArrayList<>();
        if (version >= 3) {
            for (LeaveGroupRequestData.MemberIdentity member : data.members()) {
                memberIds.add(member.memberId());
            }
        } else {
            memberIds.add(data.memberId());
        }
        ConsumerGroup group = groups.get(data.groupId());
        Map<String, Errors> results = group == null ? Map.of() : group.leave(memberIds);
        LeaveGroupResponseData response = new LeaveGroupResponseData();
        if (version < 3) {
            return response.setErrorCode(results.getOrDefault(data.memberId(), Errors.UNKNOWN_MEMBER_ID).code());
        }
        for (LeaveGroupRequestData.MemberIdentity member : data.members()) {
            response.members().add(new LeaveGroupResponseData.MemberResponse().setMemberId(member.memberId())
                    .setGroupInstanceId(member.groupInstanceId())
                    .setErrorCode(results.getOrDefault(member.memberId(), Errors.UNKNOWN_MEMBER_ID).code()));
        }
        return response;
    }

    /**
     * Whether an OffsetCommit may commit. A group not known here accepts only commits outside group
     * management (generation -1); a member of a generation from before a restart is told its
     * generation is gone and joins again.
     */
    public Errors commitAllowed(String groupId, String memberId, int generationId) {
        if (groupId == null || groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        ConsumerGroup group = groups.get(groupId);
        if (group == null) {
            return generationId < 0 ? Errors.NONE : Errors.ILLEGAL_GENERATION;
        }
        return group.commitAllowed(memberId, generationId);
    }

    public DescribeGroupsResponseData describe(List<String> groupIds) {
        DescribeGroupsResponseData response = new DescribeGroupsResponseData();
        for (String groupId : groupIds) {
            ConsumerGroup group = groups.get(groupId);
            response.groups().add(group != null ? group.describe() : new DescribedGroup().setGroupId(groupId)
                    .setGroupState(GroupState.DEAD.kafkaName()).setProtocolType("").setProtocolData(""));
        }
        return response;
    }

    /** Every group this coordinator knows, plus {@code committedOnly}: groups with offsets but no members since start. */
    public ListGroupsResponseData list(ListGroupsRequestData data, Iterable<String> committedOnly) {
        ListGroupsResponseData response = new ListGroupsResponseData();
        if (!data.typesFilter().isEmpty() && data.typesFilter().stream().noneMatch(CLASSIC::equalsIgnoreCase)) {
            return response;
        }
        Map<String, ListGroupsResponseData.ListedGroup> listed = new java.util.TreeMap<>();
        for (String groupId : committedOnly) {
            listed.put(groupId, listed(groupId, "consumer", GroupState.EMPTY));
        }
        for (ConsumerGroup group : groups.values()) {
            String type = group.protocolType();
            listed.put(group.groupId(), listed(group.groupId(), type == null ? "consumer" : type, group.state()));
        }
        for (ListGroupsResponseData.ListedGroup group : listed.values()) {
            if (data.statesFilter().isEmpty()
                    || data.statesFilter().stream().anyMatch(group.groupState()::equalsIgnoreCase)) {
                response.groups().add(group);
            }
        }
        return response;
    }

    private static ListGroupsResponseData.ListedGroup listed(String groupId, String protocolType, GroupState state) {
        return new ListGroupsResponseData.ListedGroup().setGroupId(groupId).setProtocolType(protocolType)
                .setGroupState(state.kafkaName()).setGroupType(CLASSIC);
    }
}
