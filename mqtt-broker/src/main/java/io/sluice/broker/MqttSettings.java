package io.sluice.broker;

import io.sluice.net.limits.Rate;

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
 * @param maxConnections           {@code max_connections}: open connections on all listeners together (0 = unlimited)
 * @param maxSubscriptions         {@code max_subscriptions}: subscriptions one client may hold (0 = unlimited)
 * @param maxTopicLevels           {@code max_topic_levels}: levels of a topic name or filter (0 = unlimited)
 * @param messagesRate             {@code messages_rate}: PUBLISH packets one client may send, e.g. {@code 20/s}
 * @param bytesRate                {@code bytes_rate}: PUBLISH payload bytes one client may send, e.g. {@code 1MB/s}
 * @param nodeId                   {@code bridges.node_id}: this broker's name in the bridge path of MQTT 5
 *                                 messages ({@link io.sluice.broker.message.BridgePath}); null for no loop check
 * @param maxSessions              {@code max_sessions}: sessions held, online or offline (0 = unlimited); a new
 *                                 one beyond it ends the session offline longest, or is refused if all are online
 * @param maxSessionsPerAddress    {@code max_sessions_per_address}: sessions last connected from one IP address
 *                                 (0 = unlimited); a new one beyond it ends that address's session offline longest,
 *                                 or is refused if all of them are online
 * @param maxQueuedBytes           {@code max_queued_bytes}: bytes queued in all offline sessions together (0 = unlimited);
 *                                 beyond it, messages for offline sessions are dropped and counted
 */
public record MqttSettings(int maxPacketSize, int maxMqueueLen, long maxMqueueBytes, boolean queueQos0,
                           int maxInflightWindow, int receiveMaximum, int topicAliasMaximum, int maxKeepalive,
                           double keepaliveMultiplier, long retryIntervalMillis, long sessionExpiryInterval,
                           long maxSessionExpiryInterval, long connectTimeoutMillis, int maxConnections,
                           int maxSubscriptions, int maxTopicLevels, Rate messagesRate, Rate bytesRate,
                           String nodeId, int maxSessions, int maxSessionsPerAddress, long maxQueuedBytes) {

    /** The defaults documented in the README. */
    public static MqttSettings defaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds settings from the defaults, one named value at a time. */
    public static final class Builder {
        private int maxPacketSize = 1024 * 1024;
        private int maxMqueueLen = 2048;
        private long maxMqueueBytes = 64L * 1024 * 1024;
        private boolean queueQos0 = true;
        private int maxInflightWindow = 2048;
        private int receiveMaximum = 1024;
        private int topicAliasMaximum = 1024;
        private int maxKeepalive = 65535;
        private double keepaliveMultiplier = 1.5;
        private long retryIntervalMillis = 10_000;
        private long sessionExpiryInterval = 7200;
        private long maxSessionExpiryInterval;
        private long connectTimeoutMillis = 10_000;
        private int maxConnections;
        private int maxSubscriptions;
        private int maxTopicLevels = 128;
        private Rate messagesRate = Rate.UNLIMITED;
        private Rate bytesRate = Rate.UNLIMITED;
        private String nodeId;
        private int maxSessions = 100_000;
        private int maxSessionsPerAddress = 0;
        private long maxQueuedBytes = 256L * 1024 * 1024;

        private Builder() {
        }

        public Builder maxPacketSize(int v) {
            maxPacketSize = v;
            return this;
        }

        public Builder maxMqueueLen(int v) {
            maxMqueueLen = v;
            return this;
        }

        public Builder maxMqueueBytes(long v) {
            maxMqueueBytes = v;
            return this;
        }

        public Builder queueQos0(boolean v) {
            queueQos0 = v;
            return this;
        }

        public Builder maxInflightWindow(int v) {
            maxInflightWindow = v;
            return this;
        }

        public Builder receiveMaximum(int v) {
            receiveMaximum = v;
            return this;
        }

        public Builder topicAliasMaximum(int v) {
            topicAliasMaximum = v;
            return this;
        }

        public Builder maxKeepalive(int v) {
            maxKeepalive = v;
            return this;
        }

        public Builder keepaliveMultiplier(double v) {
            keepaliveMultiplier = v;
            return this;
        }

        public Builder retryIntervalMillis(long v) {
            retryIntervalMillis = v;
            return this;
        }

        public Builder sessionExpiryInterval(long v) {
            sessionExpiryInterval = v;
            return this;
        }

        public Builder maxSessionExpiryInterval(long v) {
            maxSessionExpiryInterval = v;
            return this;
        }

        public Builder connectTimeoutMillis(long v) {
            connectTimeoutMillis = v;
            return this;
        }

        public Builder maxConnections(int v) {
            maxConnections = v;
            return this;
        }

        public Builder maxSubscriptions(int v) {
            maxSubscriptions = v;
            return this;
        }

        public Builder maxTopicLevels(int v) {
            maxTopicLevels = v;
            return this;
        }

        public Builder messagesRate(Rate v) {
            messagesRate = v;
            return this;
        }

        public Builder maxSessions(int v) {
            maxSessions = v;
            return this;
        }

        public Builder maxSessionsPerAddress(int v) {
            maxSessionsPerAddress = v;
            return this;
        }

        public Builder maxQueuedBytes(long v) {
            maxQueuedBytes = v;
            return this;
        }

        public Builder bytesRate(Rate v) {
            bytesRate = v;
            return this;
        }

        public Builder nodeId(String v) {
            nodeId = v;
            return this;
        }

        /** Validates and builds; throws IllegalArgumentException naming the key of a bad value. */
        public MqttSettings build() {
            return new MqttSettings(maxPacketSize, maxMqueueLen, maxMqueueBytes, queueQos0, maxInflightWindow,
                    receiveMaximum, topicAliasMaximum, maxKeepalive, keepaliveMultiplier, retryIntervalMillis,
                    sessionExpiryInterval, maxSessionExpiryInterval, connectTimeoutMillis, maxConnections,
                    maxSubscriptions, maxTopicLevels, messagesRate, bytesRate, nodeId,
                    maxSessions, maxSessionsPerAddress, maxQueuedBytes);
        }
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
        require(maxConnections >= 0, "max_connections", "must be 0 (unlimited) or positive", maxConnections);
        require(maxSubscriptions >= 0, "max_subscriptions", "must be 0 (unlimited) or positive", maxSubscriptions);
        require(maxTopicLevels >= 0 && maxTopicLevels <= 65535, "max_topic_levels",
                "must be between 0 (unlimited) and 65535", maxTopicLevels);
        require(messagesRate != null, "messages_rate", "must be set", null);
        require(bytesRate != null, "bytes_rate", "must be set", null);
        require(maxSessions >= 0, "max_sessions", "must be 0 (unlimited) or positive", maxSessions);
        require(maxSessionsPerAddress >= 0, "max_sessions_per_address", "must be 0 (unlimited) or positive",
                maxSessionsPerAddress);
        require(maxQueuedBytes >= 0, "max_queued_bytes", "must be 0 (unlimited) or positive", maxQueuedBytes);
    }

    private static void require(boolean ok, String key, String rule, Object value) {
        if (!ok) {
            throw new IllegalArgumentException(key + " " + rule + ", got " + value);
        }
    }
}
