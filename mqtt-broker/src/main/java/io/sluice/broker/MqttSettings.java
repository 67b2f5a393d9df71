package io.sluice.broker;

/**
 * Protocol limits and behaviour of the broker, the {@code mqtt { }} block of the configuration.
 * Values are validated when the record is built; a bad one throws with the key's name.
 *
 * @param maxPacketSize            {@code max_packet_size}: largest packet accepted, in bytes; also sent as the
 *                                 MQTT 5 Maximum Packet Size
 * @param maxMqueueLen             {@code max_mqueue_len}: a session's queue limit in messages (0 = unlimited)
 * @param maxMqueueBytes           {@code max_mqueue_bytes}: a session's queue limit in bytes (0 = unlimited)
 * @param queueQos0                {@code queue_qos0}: queue QoS 0 messages for offline clients
 * @param maxInflightWindow        {@code max_inflight_window}: unacknowledged QoS 1/2 messages per client
 * @param receiveMaximum           {@code receive_maximum}: inbound QoS 1/2 messages a client may have unacknowledged
 * @param topicAliasMaximum        {@code topic_alias_maximum}: topic aliases a client may use towards us (0 = none)
 * @param maxKeepalive             {@code max_keepalive}: longest keepalive in seconds, sent as Server Keep Alive
 * @param keepaliveMultiplier      {@code keepalive_multiplier}: silence tolerated, in keepalives (1.5 by spec)
 * @param retryIntervalMillis      {@code retry_interval}: MQTT 3.x resend of unacknowledged messages (0 = off)
 * @param sessionExpiryInterval    {@code session_expiry_interval}: seconds an MQTT 3.x persistent session lives
 *                                 offline (0 = never expires)
 * @param maxSessionExpiryInterval {@code max_session_expiry_interval}: cap on what MQTT 5 clients ask (0 = none)
 * @param connectTimeoutMillis     {@code connect_timeout}: how long a new connection may take to send CONNECT
 */
public record MqttSettings(int maxPacketSize, int maxMqueueLen, long maxMqueueBytes, boolean queueQos0,
                           int maxInflightWindow, int receiveMaximum, int topicAliasMaximum, int maxKeepalive,
                           double keepaliveMultiplier, long retryIntervalMillis, long sessionExpiryInterval,
                           long maxSessionExpiryInterval, long connectTimeoutMillis) {

    /** The defaults documented in the README. */
    public static MqttSettings defaults() {
        return new MqttSettings(1024 * 1024, 2048, 64L * 1024 * 1024, true, 2048, 1024, 1024, 65535,
                1.5, 10_000, 7200, 0, 10_000);
    }

    public MqttSettings {
        require(maxPacketSize >= 64 && maxPacketSize <= 268_435_455, "max_packet_size",
                "must be between 64 bytes and 256 MB (268435455)", maxPacketSize);
        require(maxMqueueLen >= 0, "max_mqueue_len", "must be 0 (unlimited) or positive", maxMqueueLen);
        require(maxMqueueBytes >= 0, "max_mqueue_bytes", "must be 0 (unlimited) or positive", maxMqueueBytes);
        require(maxInflightWindow >= 1 && maxInflightWindow <= 65535, "max_inflight_window",
                "must be between 1 and 65535", maxInflightWindow);
        require(receiveMaximum >= 1 && receiveMaximum <= 65535, "receive_maximum",
                "must be between 1 and 65535", receiveMaximum);
        require(topicAliasMaximum >= 0 && topicAliasMaximum <= 65535, "topic_alias_maximum",
                "must be between 0 and 65535", topicAliasMaximum);
        require(maxKeepalive >= 1 && maxKeepalive <= 65535, "max_keepalive",
                "must be between 1 and 65535 seconds", maxKeepalive);
        require(keepaliveMultiplier >= 1.0 && keepaliveMultiplier <= 10.0, "keepalive_multiplier",
                "must be between 1.0 and 10.0", keepaliveMultiplier);
        require(retryIntervalMillis >= 0, "retry_interval", "must not be negative", retryIntervalMillis);
        require(sessionExpiryInterval >= 0 && sessionExpiryInterval <= 0xFFFFFFFFL, "session_expiry_interval",
                "must be between 0 and 4294967295 seconds", sessionExpiryInterval);
        require(maxSessionExpiryInterval >= 0 && maxSessionExpiryInterval <= 0xFFFFFFFFL,
                "max_session_expiry_interval", "must be between 0 and 4294967295 seconds", maxSessionExpiryInterval);
        require(connectTimeoutMillis >= 100, "connect_timeout", "must be at least 100 ms", connectTimeoutMillis);
    }

    private static void require(boolean ok, String key, String rule, Object value) {
        if (!ok) {
            throw new IllegalArgumentException(key + " " + rule + ", got " + value);
        }
    }
}
