package io.sluice.broker.message;

import java.util.List;

/**
 * The path of a bridged MQTT 5 message: Sluice's bridges add a User Property {@value #PROPERTY}
 * naming their node to what they forward ({@code io.sluice.bridges.BridgePath}, which holds the same
 * name), so a broker that finds its own node id there sees a message that went round a loop of
 * bridges and drops it instead of routing it again.
 */
public final class BridgePath {
    /** The User Property name; one property per node the message was bridged through. */
    public static final String PROPERTY = "sluice-path";

    private BridgePath() {
    }

    /** Whether {@code properties} show that the message has already passed through {@code nodeId}. */
    public static boolean passedThrough(List<UserProperty> properties, String nodeId) {
        if (nodeId == null) {
            return false;
        }
        for (int i = 0; i < properties.size(); i++) {
            UserProperty property = properties.get(i);
            if (property.name().equals(PROPERTY) && property.value().equals(nodeId)) {
                return true;
            }
        }
        return false;
    }
}
