package io.sluice.broker.metrics;

/** The broker's counters, one stable name each, shared by $SYS and the metrics endpoint. */
public enum BrokerCounter {
    CONNECTIONS_ACCEPTED("connections accepted (CONNACK success)"),
    CONNECTIONS_REFUSED("connections refused at CONNECT"),
    CONNECTIONS_REFUSED_AUTH("connections refused for bad credentials, a failed authentication or no anonymous access"),
    CONNECTIONS_REFUSED_LIMIT("connections closed at accept because max_connections was reached"),
    CONNECTIONS_REFUSED_RATE("connections closed at accept because max_conn_rate was exceeded"),
    TLS_HANDSHAKES_FAILED("TLS handshakes that failed (bad or missing client certificate, protocol mismatch)"),
    DISCONNECTS_PROTOCOL_ERROR("connections closed for a malformed packet or a protocol violation"),
    DISCONNECTS_KEEPALIVE("connections closed because the keepalive expired"),
    TAKEOVERS("sessions taken over by a new connection with the same client id"),
    MESSAGES_RECEIVED("PUBLISH packets received"),
    MESSAGES_SENT("PUBLISH packets sent"),
    BYTES_RECEIVED("bytes received on all connections"),
    BYTES_SENT("bytes sent on all connections"),
    MESSAGES_DROPPED_QUEUE_FULL("deliveries dropped because a session queue was full"),
    MESSAGES_DROPPED_OFFLINE_QOS0("QoS 0 deliveries dropped for offline clients (queue_qos0 = false)"),
    MESSAGES_DROPPED_QUEUED_BYTES("deliveries to offline sessions dropped because all queues together reached max_queued_bytes"),
    MESSAGES_DROPPED_TOO_LARGE("deliveries dropped because they exceed the client's maximum packet size"),
    MESSAGES_DROPPED_NO_SUBSCRIBER("messages of a shared subscription that no member could take"),
    MESSAGES_EXPIRED("messages discarded because their Message Expiry Interval passed"),
    PUBLISH_DROPPED_INVALID("PUBLISH packets refused for an invalid topic or payload format"),
    PUBLISH_DENIED("PUBLISH packets refused by the ACL"),
    PUBLISH_DROPPED_LOOP("bridged MQTT 5 PUBLISH packets dropped because their sluice-path holds this node's id"),
    PUBLISH_THROTTLED("times a client's reads were paused for exceeding messages_rate or bytes_rate"),
    PUBLISH_NOT_STORED("QoS 1/2 PUBLISH packets not acknowledged as stored because a capture, stream, bridge or the broker state could not store them (MQTT 5: reason 0x97; MQTT 3.1.1: no acknowledgement, so the client sends again)"),
    SUBSCRIBE_DENIED("subscriptions refused by the ACL"),
    SUBSCRIBE_REFUSED_INVALID("subscriptions refused for an invalid filter or too many topic levels"),
    SUBSCRIBE_REFUSED_QUOTA("subscriptions refused because the client holds max_subscriptions already"),
    DISCONNECTS_NOT_AUTHORIZED("connections closed for a denied PUBLISH (deny_action = disconnect) or a failed re-authentication"),
    DISCONNECTS_KICKED("connections closed by an operator (the HTTP API's kick)"),
    FILE_RELOADS("password, ACL or certificate files reloaded"),
    FILE_RELOADS_FAILED("reloads that failed and kept the previous contents"),
    WILLS_PUBLISHED("will messages published"),
    SESSIONS_EXPIRED("sessions removed after their expiry interval"),
    SESSIONS_EVICTED("offline sessions ended early to make room for a new one (max_sessions)"),
    STATE_RECORDS_UNREADABLE("broker-state records that did not read back at start-up (a bug: each is logged at ERROR)"),
    STATE_JOURNAL_FAILURES("times the broker-state journal's writer thread failed; it is not restarted, and state changes are refused until the broker restarts (see /health)"),
    STATE_WRITES_REFUSED("acknowledgements refused because the broker-state journal's writer thread had failed (their PUBLISHes are not acknowledged as stored)");

    private final String help;

    BrokerCounter(String help) {
        this.help = help;
    }

    /** What the counter counts, for metric help text. */
    public String help() {
        return help;
    }
}
