package io.sluice.bridges;

import java.util.Map;

/**
 * One bridge as status readers ({@code $SYS}, metrics, the HTTP API) see it at a moment.
 *
 * @param name           the bridge's name ({@code bridges.mqtt.<name>} or {@code bridges.kafka.<name>})
 * @param type           {@code mqtt} or {@code kafka}
 * @param remote         where it connects, e.g. {@code mqtt-tcp://cloud:1883}
 * @param state          its connection state
 * @param backlog        messages stored and not yet acknowledged by the remote
 * @param backlogBytes   their bytes
 * @param window         how many messages may be unacknowledged at once on the current connection (0 when down)
 * @param counters       every {@link BridgeCounter} by metric name
 * @param lastError      why the last connection ended or failed, or null
 */
public record BridgeStatus(String name, String type, String remote, BridgeState state, long backlog,
                           long backlogBytes, int window, Map<String, Long> counters, String lastError) {
}
