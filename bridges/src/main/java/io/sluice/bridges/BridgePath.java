package io.sluice.bridges;

import java.util.List;

/**
 * Loop safety across bridges for MQTT 5: every message an MQTT bridge forwards to an MQTT 5 remote
 * carries one more User Property {@value #PROPERTY} naming the forwarding node ({@code
 * bridges.node_id}), so a message's {@code sluice-path} properties list, in order, every Sluice it
 * was bridged through. A Sluice drops (and counts) a message that arrives with its own node id in
 * that list: it has gone round a loop. Chains (edge to fog to cloud) are unaffected, since no node
 * sees its own id. The broker keeps its own copy of the name ({@code io.sluice.broker.message.BridgePath}),
 * as it does not depend on this module; both must stay equal.
 */
public final class BridgePath {
    /** The User Property name; one property per node, in the order the message passed them. */
    public static final String PROPERTY = "sluice-path";

    private BridgePath() {
    }

    /** Whether {@code properties} show that the message has already passed through {@code nodeId}. */
    public static boolean passedThrough(List<UserProperty> properties, String nodeId) {
        for (int i = 0; i < properties.size(); i++) {
            UserProperty property = properties.get(i);
            if (property.name().equals(PROPERTY) && property.value().equals(nodeId)) {
                return true;
            }
        }
        return false;
    }
}
