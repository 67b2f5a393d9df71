package io.sluice.kafka.group;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/** One member of a consumer group. Guarded by its group's monitor. */
final class Member {
    /** One protocol the member supports (an assignor, for consumers) with its metadata (the subscription). */
    record Protocol(String name, byte[] metadata) {
        boolean sameAs(Protocol other) {
            return name.equals(other.name) && Arrays.equals(metadata, other.metadata);
        }
    }

    final String memberId;
    final String groupInstanceId;
    final String clientId;
    final String clientHost;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;
    List<Protocol> protocols;
    byte[] assignment = new byte[0];
    /** The JoinGroup waiting for the rebalance to complete, and its version; null when none waits. */
    Consumer<JoinGroupResponseData> awaitingJoin;
    short joinVersion;
    /** The SyncGroup waiting for the leader's assignment; null when none waits. */
    Consumer<SyncGroupResponseData> awaitingSync;
    ScheduledFuture<?> expiry;
    /** Counts session-timer restarts, so a timer that fires after a restart knows it is stale. */
    long touches;

    Member(String memberId, String groupInstanceId, String clientId, String clientHost) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
    }

    boolean supports(String protocol) {
        return metadata(protocol) != null;
    }

    /** The metadata the member gave for {@code protocol}, or null if it does not support it. */
    byte[] metadata(String protocol) {
        for (Protocol p : protocols) {
            if (p.name().equals(protocol)) {
                return p.metadata();
            }
        }
        return null;
    }

    /** Whether {@code other} is exactly the protocol list the member has. */
    boolean sameProtocols(List<Protocol> other) {
        if (other.size() != protocols.size()) {
            return false;
        }
        for (int i = 0; i < other.size(); i++) {
            if (!other.get(i).sameAs(protocols.get(i))) {
                return false;
            }
        }
        return true;
    }
}
