package io.sluice.kafka.group;

/**
 * The states of a classic consumer group, as Kafka's group coordinator names them. The changes:
 * <pre>
 *  Empty ──join──▶ PreparingRebalance ──all known members joined (or the rebalance timeout)──▶ CompletingRebalance
 *                      ▲    │ no member left                                                    │ the leader's SyncGroup
 *                      │    ▼                                                                   ▼
 *                      │  Empty                                                               Stable
 *                      └──────────── a member joins, leaves, changes its protocols or expires ◀──┘
 * </pre>
 * CompletingRebalance also goes back to PreparingRebalance when membership changes before the
 * leader's assignment arrives. Dead is only reported, for a group that is not known.
 */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String kafkaName;

    GroupState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    /** The name DescribeGroups and ListGroups report. */
    public String kafkaName() {
        return kafkaName;
    }
}
