package io.sluice.kafka.api;

/**
 * This server as Kafka clients see it: a cluster of one broker, which leads every partition and
 * coordinates every group.
 *
 * @param id        the broker id, {@value #ID}
 * @param host      the advertised host
 * @param port      the advertised port
 * @param clusterId the cluster id, stable across restarts
 */
public record Node(int id, String host, int port, String clusterId) {
    /** The broker id of this server. */
    public static final int ID = 0;
    /** Every partition's leader epoch: there is only ever one leader. */
    public static final int LEADER_EPOCH = 0;
}
