package io.sluice.bridges;

import java.util.Locale;

/**
 * Every counter a bridge keeps, with its stable metric name ({@code queued_total}: the Prometheus
 * counter {@code sluice_bridge_queued_total}, the {@code $SYS} topic {@code bridges/<name>/queued})
 * and what it counts. Nothing a bridge drops or refuses goes uncounted.
 */
public enum BridgeCounter {
    QUEUED("messages appended to the bridge's backlog"),
    SENT("messages sent to the remote, resends included"),
    ACKNOWLEDGED("messages the remote acknowledged (PUBACK, PUBCOMP, Kafka ack; QoS 0 once written)"),
    RESENT("messages sent again after a reconnect (the remote may see them twice)"),
    DROPPED_OLDEST("messages dropped from a full backlog to make room (full_policy = drop_oldest)"),
    REFUSED_FULL("new messages refused because the backlog was full (full_policy = refuse_new)"),
    REFUSED_BUSY("new messages refused because the backlog writer was too far behind"),
    REFUSED_BY_REMOTE("messages the remote refused for good (MQTT reason code >= 0x80, Kafka record error)"),
    TOO_LARGE("messages larger than the remote's maximum packet size, never sent"),
    EXPIRED("messages whose MQTT 5 expiry interval passed while they waited in the backlog"),
    INVALID_TOPIC("messages whose renamed topic is not a valid topic name (empty, or with a wildcard), never sent"),
    QOS0_DROPPED_OFFLINE("QoS 0 messages not stored (retry_qos_0 = false) while the remote was away or slow"),
    STORE_FAILED("messages the backlog could not store (a disk error); not acknowledged to their publishers as stored"),
    RECEIVED("messages received from the remote's subscriptions"),
    RECEIVED_DENIED("received messages the local ACL did not let the bridge publish"),
    RECEIVED_INVALID("received messages whose local topic is not valid here"),
    RECEIVED_NOT_STORED("received QoS 1/2 messages the local side could not store (full disk, offline log, full queue): "
            + "not acknowledged, the bridge reconnects so that the remote sends them again"),
    RECEIVED_LOOPED("received messages that had passed through this node before (MQTT 5 sluice-path), dropped"),
    CONNECTS("connections established"),
    CONNECT_FAILURES("connection attempts that failed"),
    DISCONNECTS("established connections lost"),
    SUBSCRIPTIONS_REFUSED("subscriptions the remote refused");

    private final String help;

    BridgeCounter(String help) {
        this.help = help;
    }

    /** The counter's metric name, such as {@code queued_total}; {@code $SYS} drops the {@code _total}. */
    public String metricName() {
        return name().toLowerCase(Locale.ROOT) + "_total";
    }

    public String help() {
        return help;
    }
}
