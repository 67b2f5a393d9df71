package io.sluice.kafka.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One classic consumer group and its membership state machine ({@link GroupState}), as Kafka's
 * group coordinator runs it:
 * <ul>
 *  <li>A JoinGroup without a member id gets one; from JoinGroup v4 it is answered
 *      MEMBER_ID_REQUIRED with that id, and the member joins again with it.</li>
 *  <li>A new member, a member with new protocols, a leaving or expired member, and the leader
 *      joining again start a rebalance (PreparingRebalance). Once every member has joined again
 *      (or the longest rebalance timeout passed, and the ones that did not are removed), the
 *      generation goes up, the protocol (assignor) most members prefer among those all support is
 *      chosen, and every JoinGroup is answered: the leader with all members' metadata
 *      (CompletingRebalance).</li>
 *  <li>The leader's SyncGroup carries every member's assignment: each SyncGroup is answered with
 *      its own, and the group is Stable.</li>
 *  <li>A member heard from neither by heartbeat, join nor sync within its session timeout is
 *      removed, unless it is waiting for a rebalance to complete.</li>
 * </ul>
 * The settled group (Stable after the leader's SyncGroup, or Empty) is saved to the {@link GroupStore}
 * and comes back after a restart ({@link #restore}).
 * Thread-safe: every operation holds the group's monitor; answers are collected and sent after
 * it is released, so no client callback runs under it. Timers run on the coordinator's timer thread.
 */
final class ConsumerGroup {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroup.class);
    private static final byte[] NO_BYTES = new byte[0];

    /** A JoinGroup, decoded. */
    record JoinRequest(String memberId, String groupInstanceId, String clientId, String clientHost, int sessionTimeoutMs,
                       int rebalanceTimeoutMs, String protocolType, List<Member.Protocol> protocols, short version) {
    }

    /** Answers collected under the monitor, sent after it. */
    private static final class Answers {
        private final List<Runnable> answers = new ArrayList<>(2);

        void add(Runnable answer) {
            answers.add(answer);
        }

        void send() {
            answers.forEach(Runnable::run);
        }
    }

    private final String groupId;
    private final ScheduledExecutorService timer;
    private final GroupStore store;
    private final Map<String, Member> members = new LinkedHashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED, waiting for their member to join with them. */
    private final Map<String, ScheduledFuture<?>> pending = new HashMap<>();
    private GroupState state = GroupState.EMPTY;
    private int generation;
    private String protocolType;
    private String protocolName;
    private String leaderId;
    private ScheduledFuture<?> rebalanceTimer;
    private long rebalances;

    ConsumerGroup(String groupId, ScheduledExecutorService timer, GroupStore store) {
        this.groupId = groupId;
        this.timer = timer;
        this.store = store;
    }

    /**
     * The group as it was saved before a restart: Stable with its members, generation and
     * assignments (or Empty). Each member's session timer starts now, so members that come back
     * carry on with their generation without a rebalance, and the ones that do not are removed
     * after their session timeout, as if they had gone silent.
     */
    static ConsumerGroup restore(String groupId, ScheduledExecutorService timer, GroupStore store, GroupRecord saved) {
        ConsumerGroup group = new ConsumerGroup(groupId, timer, store);
        synchronized (group) {
            group.generation = saved.generation();
            group.protocolType = saved.protocolType();
            group.protocolName = saved.protocolName();
            group.leaderId = saved.leaderId();
            for (GroupRecord.MemberRecord m : saved.members()) {
                Member member = new Member(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost());
                member.sessionTimeoutMs = m.sessionTimeoutMs();
                member.rebalanceTimeoutMs = m.rebalanceTimeoutMs();
                member.protocols = m.protocols();
                member.assignment = m.assignment();
                group.members.put(member.memberId, member);
            }
            group.state = group.members.isEmpty() ? GroupState.EMPTY : GroupState.STABLE;
            group.members.values().forEach(group::touch);
        }
        return group;
    }

    /** Saves the settled group (Stable or Empty), as Kafka's coordinator writes its group metadata. */
    private void save() {
        List<GroupRecord.MemberRecord> saved = new ArrayList<>(members.size());
        for (Member m : members.values()) {
            saved.add(new GroupRecord.MemberRecord(m.memberId, m.groupInstanceId, m.clientId, m.clientHost,
                    m.sessionTimeoutMs, m.rebalanceTimeoutMs, m.protocols, m.assignment));
        }
        try {
            store.save(groupId, new GroupRecord(generation, protocolType, protocolName, leaderId, saved).encode());
        } catch (RuntimeException e) {
            // The group goes on in memory; after a restart its members join again, as before persistence.
            LOG.error("consumer group '{}': saving generation {} failed; after a restart its members will join again",
                    groupId, generation, e);
        }
    }

    String groupId() {
        return groupId;
    }

    synchronized GroupState state() {
        return state;
    }

    synchronized int generation() {
        return generation;
    }

    synchronized String protocolType() {
        return protocolType;
    }

    // ---------------------------------------------------------------- JoinGroup

    void join(JoinRequest request, Consumer<JoinGroupResponseData> reply) {
        Answers answers = new Answers();
        synchronized (this) {
            join(request, reply, answers);
        }
        answers.send();
    }

    private void join(JoinRequest request, Consumer<JoinGroupResponseData> reply, Answers answers) {
        if (!compatible(request)) {
            answers.add(() -> reply.accept(joinError(Errors.INCONSISTENT_GROUP_PROTOCOL, request.memberId())));
            return;
        }
        if (request.memberId().isEmpty()) {
            String memberId = request.clientId() + "-" + UUID.randomUUID();
            if (request.version() >= 4) {
                pending.put(memberId, timer.schedule(() -> expirePending(memberId), request.sessionTimeoutMs(),
                        TimeUnit.MILLISECONDS));
                answers.add(() -> reply.accept(joinError(Errors.MEMBER_ID_REQUIRED, memberId)));
                return;
            }
            add(memberId, request, reply, answers);
            return;
        }
        ScheduledFuture<?> handedOut = pending.remove(request.memberId());
        if (handedOut != null) {
            handedOut.cancel(false);
            add(request.memberId(), request, reply, answers);
            return;
        }
        Member member = members.get(request.memberId());
        if (member == null) {
            answers.add(() -> reply.accept(joinError(Errors.UNKNOWN_MEMBER_ID, request.memberId())));
            return;
        }
        rejoin(member, request, reply, answers);
    }

    /** A member may join if the group is empty, or it speaks the group's protocol type and one of its protocols. */
    private boolean compatible(JoinRequest request) {
        if (request.protocolType() == null || request.protocolType().isEmpty() || request.protocols().isEmpty()) {
            return false;
        }
        if (members.isEmpty()) {
            return true;
        }
        if (!request.protocolType().equals(protocolType)) {
            return false;
        }
        for (Member.Protocol protocol : request.protocols()) {
            boolean everyone = true;
            for (Member member : members.values()) {
                if (!member.memberId.equals(request.memberId()) && !member.supports(protocol.name())) {
                    everyone = false;
                    break;
                }
            }
            if (everyone) {
                return true;
            }
        }
        return false;
    }

    private void add(String memberId, JoinRequest request, Consumer<JoinGroupResponseData> reply, Answers answers) {
        Member member = new Member(memberId, request.groupInstanceId(), request.clientId(), request.clientHost());
        if (members.isEmpty()) {
            protocolType = request.protocolType();
        }
        members.put(memberId, member);
        update(member, request, reply);
        if (state != GroupState.PREPARING_REBALANCE) {
            prepareRebalance(answers);
        }
        maybeCompleteJoin(answers);
    }

    private void rejoin(Member member, JoinRequest request, Consumer<JoinGroupResponseData> reply, Answers answers) {
        boolean unchanged = member.sameProtocols(request.protocols());
        switch (state) {
            case PREPARING_REBALANCE -> {
                update(member, request, reply);
                maybeCompleteJoin(answers);
            }
            case COMPLETING_REBALANCE, STABLE -> {
                boolean leader = member.memberId.equals(leaderId);
                if (unchanged && (state == GroupState.COMPLETING_REBALANCE || !leader)) {
                    // Nothing changed: the answer of the current generation again.
                    JoinGroupResponseData answer = joinAnswer(member);
                    touch(member);
                    answers.add(() -> reply.accept(answer));
                } else {
                    update(member, request, reply);
                    prepareRebalance(answers);
                    maybeCompleteJoin(answers);
                }
            }
            default -> answers.add(() -> reply.accept(joinError(Errors.UNKNOWN_MEMBER_ID, member.memberId)));
        }
    }

    private void update(Member member, JoinRequest request, Consumer<JoinGroupResponseData> reply) {
        member.sessionTimeoutMs = request.sessionTimeoutMs();
        member.rebalanceTimeoutMs = request.rebalanceTimeoutMs();
        member.protocols = request.protocols();
        member.awaitingJoin = reply;
        member.joinVersion = request.version();
        touch(member);
    }

    private void prepareRebalance(Answers answers) {
        if (state == GroupState.COMPLETING_REBALANCE) {
            for (Member member : members.values()) {
                if (member.awaitingSync != null) {
                    Consumer<SyncGroupResponseData> reply = member.awaitingSync;
                    member.awaitingSync = null;
                    answers.add(() -> reply.accept(syncError(Errors.REBALANCE_IN_PROGRESS)));
                }
            }
        }
        for (Member member : members.values()) {
            member.assignment = NO_BYTES;
        }
        state = GroupState.PREPARING_REBALANCE;
        long round = ++rebalances;
        int timeout = 1;
        for (Member member : members.values()) {
            timeout = Math.max(timeout, member.rebalanceTimeoutMs);
        }
        cancel(rebalanceTimer);
        rebalanceTimer = timer.schedule(() -> rebalanceTimedOut(round), timeout, TimeUnit.MILLISECONDS);
    }

    private void maybeCompleteJoin(Answers answers) {
        if (state != GroupState.PREPARING_REBALANCE || !pending.isEmpty()) {
            return;
        }
        for (Member member : members.values()) {
            if (member.awaitingJoin == null) {
                return;
            }
        }
        completeJoin(answers);
    }

    /** The end of PreparingRebalance: members that did not join again are out; the next generation starts. */
    private void completeJoin(Answers answers) {
        cancel(rebalanceTimer);
        rebalanceTimer = null;
        members.values().removeIf(member -> {
            if (member.awaitingJoin == null) {
                cancel(member.expiry);
                return true;
            }
            return false;
        });
        generation++;
        if (members.isEmpty()) {
            state = GroupState.EMPTY;
            protocolName = null;
            leaderId = null;
            save();
            return;
        }
        protocolName = chooseProtocol();
        if (leaderId == null || !members.containsKey(leaderId)) {
            leaderId = members.keySet().iterator().next();
        }
        state = GroupState.COMPLETING_REBALANCE;
        for (Member member : members.values()) {
            Consumer<JoinGroupResponseData> reply = member.awaitingJoin;
            member.awaitingJoin = null;
            JoinGroupResponseData answer = joinAnswer(member);
            touch(member);
            answers.add(() -> reply.accept(answer));
        }
    }

    /** Each member votes for the first of its protocols that every member supports; most votes win. */
    private String chooseProtocol() {
        Map<String, Integer> votes = new LinkedHashMap<>();
        for (Member member : members.values()) {
            for (Member.Protocol protocol : member.protocols) {
                if (supportedByAll(protocol.name())) {
                    votes.merge(protocol.name(), 1, Integer::sum);
                    break;
                }
            }
        }
        String chosen = null;
        int most = 0;
        for (Map.Entry<String, Integer> vote : votes.entrySet()) {
            if (vote.getValue() > most) {
                chosen = vote.getKey();
                most = vote.getValue();
            }
        }
        return chosen;
    }

    private boolean supportedByAll(String protocol) {
        for (Member member : members.values()) {
            if (!member.supports(protocol)) {
                return false;
            }
        }
        return true;
    }

    private JoinGroupResponseData joinAnswer(Member member) {
        JoinGroupResponseData answer = new JoinGroupResponseData()
                .setGenerationId(generation)
                .setProtocolType(protocolType)
                .setProtocolName(protocolName)
                .setLeader(leaderId)
                .setMemberId(member.memberId);
        if (member.memberId.equals(leaderId)) {
            for (Member each : members.values()) {
                answer.members().add(new JoinGroupResponseMember().setMemberId(each.memberId)
                        .setGroupInstanceId(each.groupInstanceId).setMetadata(each.metadata(protocolName)));
            }
        }
        return answer;
    }

    static JoinGroupResponseData joinError(Errors error, String memberId) {
        return new JoinGroupResponseData().setErrorCode(error.code()).setGenerationId(-1).setProtocolName("")
                .setLeader("").setMemberId(memberId);
    }

    private void rebalanceTimedOut(long round) {
        Answers answers = new Answers();
        synchronized (this) {
            if (round != rebalances || state != GroupState.PREPARING_REBALANCE) {
                return;
            }
            pending.values().forEach(ConsumerGroup::cancel);
            pending.clear();
            completeJoin(answers);
        }
        answers.send();
    }

    private void expirePending(String memberId) {
        Answers answers = new Answers();
        synchronized (this) {
            if (pending.remove(memberId) != null) {
                maybeCompleteJoin(answers);
            }
        }
        answers.send();
    }

    // ---------------------------------------------------------------- SyncGroup, Heartbeat, LeaveGroup

    void sync(String memberId, int generationId, String type, String name, Map<String, byte[]> assignments,
              Consumer<SyncGroupResponseData> reply) {
        Answers answers = new Answers();
        synchronized (this) {
            sync(memberId, generationId, type, name, assignments, reply, answers);
        }
        answers.send();
    }

    private void sync(String memberId, int generationId, String type, String name, Map<String, byte[]> assignments,
                      Consumer<SyncGroupResponseData> reply, Answers answers) {
        Member member = members.get(memberId);
        Errors error = member == null ? Errors.UNKNOWN_MEMBER_ID
                : generationId != generation ? Errors.ILLEGAL_GENERATION
                : (type != null && !type.equals(protocolType)) || (name != null && !name.equals(protocolName))
                ? Errors.INCONSISTENT_GROUP_PROTOCOL
                : state == GroupState.PREPARING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
        if (error != Errors.NONE) {
            answers.add(() -> reply.accept(syncError(error)));
            return;
        }
        touch(member);
        if (state == GroupState.STABLE) {
            SyncGroupResponseData answer = syncAnswer(member);
            answers.add(() -> reply.accept(answer));
            return;
        }
        member.awaitingSync = reply;
        if (memberId.equals(leaderId)) {
            for (Member each : members.values()) {
                each.assignment = assignments.getOrDefault(each.memberId, NO_BYTES);
            }
            state = GroupState.STABLE;
            save();
            for (Member each : members.values()) {
                if (each.awaitingSync != null) {
                    Consumer<SyncGroupResponseData> waiting = each.awaitingSync;
                    each.awaitingSync = null;
                    SyncGroupResponseData answer = syncAnswer(each);
                    answers.add(() -> waiting.accept(answer));
                }
            }
        }
    }

    private SyncGroupResponseData syncAnswer(Member member) {
        return new SyncGroupResponseData().setProtocolType(protocolType).setProtocolName(protocolName)
                .setAssignment(member.assignment);
    }

    static SyncGroupResponseData syncError(Errors error) {
        return new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(NO_BYTES);
    }

    synchronized Errors heartbeat(String memberId, int generationId) {
        Member member = members.get(memberId);
        if (member == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (generationId != generation) {
            return Errors.ILLEGAL_GENERATION;
        }
        touch(member);
        return state == GroupState.PREPARING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    /** Removes members; returns, per member id, the error to answer (NONE when it was a member). */
    Map<String, Errors> leave(Collection<String> memberIds) {
        Answers answers = new Answers();
        Map<String, Errors> results = new LinkedHashMap<>();
        synchronized (this) {
            boolean changed = false;
            for (String memberId : memberIds) {
                Member member = members.remove(memberId);
                results.put(memberId, member == null ? Errors.UNKNOWN_MEMBER_ID : Errors.NONE);
                if (member != null) {
                    removed(member, answers);
                    changed = true;
                }
            }
            if (changed) {
                membersChanged(answers);
            }
        }
        answers.send();
        return results;
    }

    private static void removed(Member member, Answers answers) {
        cancel(member.expiry);
        if (member.awaitingJoin != null) {
            Consumer<JoinGroupResponseData> reply = member.awaitingJoin;
            answers.add(() -> reply.accept(joinError(Errors.UNKNOWN_MEMBER_ID, member.memberId)));
        }
        if (member.awaitingSync != null) {
            Consumer<SyncGroupResponseData> reply = member.awaitingSync;
            answers.add(() -> reply.accept(syncError(Errors.UNKNOWN_MEMBER_ID)));
        }
    }

    private void membersChanged(Answers answers) {
        if (state == GroupState.STABLE || state == GroupState.COMPLETING_REBALANCE) {
            prepareRebalance(answers);
        }
        maybeCompleteJoin(answers);
    }

    /** Restarts a member's session timer. */
    private void touch(Member member) {
        cancel(member.expiry);
        long touch = ++member.touches;
        member.expiry = timer.schedule(() -> expire(member.memberId, touch), member.sessionTimeoutMs, TimeUnit.MILLISECONDS);
    }

    private void expire(String memberId, long touch) {
        Answers answers = new Answers();
        synchronized (this) {
            Member member = members.get(memberId);
            if (member == null || member.touches != touch) {
                return;
            }
            if (member.awaitingJoin != null || member.awaitingSync != null) {
                touch(member); // waiting for the group, not silent
                return;
            }
            members.remove(memberId);
            removed(member, answers);
            membersChanged(answers);
        }
        answers.send();
    }

    private static void cancel(ScheduledFuture<?> future) {
        if (future != null) {
            future.cancel(false);
        }
    }

    // ---------------------------------------------------------------- offsets and descriptions

    /**
     * Whether an OffsetCommit from {@code memberId} of {@code generationId} may commit: a commit
     * outside group management (generation -1, no member id) only while the group is empty.
     */
    synchronized Errors commitAllowed(String memberId, int generationId) {
        if (generationId < 0 && (memberId == null || memberId.isEmpty()) && state == GroupState.EMPTY) {
            return Errors.NONE;
        }
        if (state == GroupState.COMPLETING_REBALANCE) {
            return Errors.REBALANCE_IN_PROGRESS;
        }
        if (memberId == null || !members.containsKey(memberId)) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return generationId == generation ? Errors.NONE : Errors.ILLEGAL_GENERATION;
    }

    synchronized DescribedGroup describe() {
        DescribedGroup described = new DescribedGroup().setGroupId(groupId).setGroupState(state.kafkaName())
                .setProtocolType(protocolType == null ? "" : protocolType)
                .setProtocolData(state == GroupState.STABLE ? protocolName : "");
        for (Member member : members.values()) {
            boolean stable = state == GroupState.STABLE;
            described.members().add(new DescribedGroupMember().setMemberId(member.memberId)
                    .setGroupInstanceId(member.groupInstanceId).setClientId(member.clientId)
                    .setClientHost(member.clientHost)
                    .setMemberMetadata(stable ? member.metadata(protocolName) : NO_BYTES)
                    .setMemberAssignment(stable ? member.assignment : NO_BYTES));
        }
        return described;
    }
}
