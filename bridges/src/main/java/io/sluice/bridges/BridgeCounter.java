package io.sluice.bridges;

import java.util.Locale;

/**
 * Every counter a bridge keeps, with its stable name (the {@code $SYS} topic
 * {@code bridges/<name>/<counter>} and the Prometheus counter {@code sluice_bridge_<counter>_total})
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
    STORE_FAILED("messages the backlog could not store (a disk error); their publishers were acknowledged"),
    RECEIVED("messages received from the remote's subscriptions"),
    RECEIVED_DENIED("received messages the local ACL did not let the bridge publish"),
    RECEIVED_INVALID("received messages whose local topic is not valid here"),
    CONNECTS("connections established"),
    CONNECT_FAILURES("connection attempts that failed"),
    DISCONNECTS("established connections lost"),
    SUBSCRIPTIONS_REFUSED("subscriptions the remote refused");

    private final String help;

    BridgeCounter(String help) {
        this.help = help;
    }

    /** The counter's name in {@code $SYS} and, with {@code _total}, in Prometheus. */
    public String metricName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public String help() {
        return help;
    }
}
