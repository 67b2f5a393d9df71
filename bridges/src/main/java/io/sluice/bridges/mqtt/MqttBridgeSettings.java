package io.sluice.bridges.mqtt;

import java.util.List;
import java.util.Objects;

import io.sluice.bridges.MessageProperties;
import io.sluice.bridges.UserProperty;
import io.sluice.net.tls.TlsClientSettings;
import io.sluice.settings.InvalidSettingException;

/**
 * One {@code bridges.mqtt.<name>} block, with NanoMQ's keys and meanings (README, "Bridges"). The
 * server reads and checks the HOCON; these records check the values once more, by key name.
 *
 * @param name              the block's name
 * @param server            {@code server}
 * @param protoVer          {@code proto_ver}: 3 (MQTT 3.1), 4 (3.1.1) or 5
 * @param clientId          {@code clientid}
 * @param keepaliveSeconds  {@code keepalive}, 0 for none
 * @param cleanStart        {@code clean_start}
 * @param username          {@code username}, or null
 * @param password          {@code password}, or null
 * @param backoffMaxMillis  {@code backoff_max}: the longest wait between two connection attempts
 * @param forwards          {@code forwards}
 * @param subscriptions     {@code subscription}
 * @param maxSendQueueLen   {@code max_send_queue_len}: the most messages sent and not yet acknowledged;
 *                          0 leaves it to the remote (its Receive Maximum)
 * @param cancelTimeoutMillis {@code cancel_timeout}: how long a sent message may wait for its
 *                          acknowledgement before the connection counts as broken (it is then resent
 *                          on the next connection, never dropped)
 * @param retryQos0         {@code retry_qos_0}: store QoS 0 messages too, so they survive outages
 * @param bridgeBit         {@code no_local_v4}: for 3.1 and 3.1.1, set the bridge bit (protocol level
 *                          | 0x80) so the remote does not send back what the bridge published
 * @param ssl               {@code ssl { }} for {@code tls+mqtt-tcp://}, or null
 * @param will              {@code will { }}, or null
 * @param connect           {@code conn_properties { }} (MQTT 5)
 * @param subscriptionIdentifier {@code sub_properties.identifier} (MQTT 5), 0 for none
 * @param subscriptionUserProperties {@code sub_properties.user_property} (MQTT 5)
 * @param tcpNoDelay        {@code tcp.nodelay}
 * @param tcpKeepAlive      {@code tcp.keepalive}
 */
public record MqttBridgeSettings(String name, ServerAddress server, int protoVer, String clientId,
                                 int keepaliveSeconds, boolean cleanStart, String username, String password,
                                 long backoffMaxMillis, List<ForwardRule> forwards,
                                 List<SubscriptionRule> subscriptions, int maxSendQueueLen,
                                 long cancelTimeoutMillis, boolean retryQos0, boolean bridgeBit,
                                 TlsClientSettings ssl, Will will, ConnectProperties connect,
                                 int subscriptionIdentifier, List<UserProperty> subscriptionUserProperties,
                                 boolean tcpNoDelay, boolean tcpKeepAlive) {

    public MqttBridgeSettings {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(clientId, "clientid");
        forwards = List.copyOf(forwards);
        subscriptions = List.copyOf(subscriptions);
        subscriptionUserProperties = List.copyOf(subscriptionUserProperties);
        Objects.requireNonNull(connect, "conn_properties");
        if (protoVer < 3 || protoVer > 5) {
            throw new InvalidSettingException("proto_ver", "must be 3 (MQTT 3.1), 4 (3.1.1) or 5, got " + protoVer);
        }
        if (keepaliveSeconds < 0 || keepaliveSeconds > 65535) {
            throw new InvalidSettingException("keepalive", "must be between 0 and 65535 seconds, got " + keepaliveSeconds);
        }
        if (backoffMaxMillis < 1) {
            throw new InvalidSettingException("backoff_max", "must be positive, got " + backoffMaxMillis + " ms");
        }
        if (maxSendQueueLen < 0 || maxSendQueueLen > 65535) {
            throw new InvalidSettingException("max_send_queue_len", "must be between 1 and 65535, got " + maxSendQueueLen);
        }
        if (cancelTimeoutMillis < 1) {
            throw new InvalidSettingException("cancel_timeout", "must be positive, got " + cancelTimeoutMillis + " ms");
        }
        if (ssl != null && !server.tls()) {
            throw new InvalidSettingException("ssl", "is set but server '" + server + "' is not tls+mqtt-tcp://");
        }
        if (protoVer == 3 && clientId.length() > 23) {
            throw new InvalidSettingException("clientid", "'" + clientId + "' is longer than the 23 characters MQTT 3.1"
                    + " allows (proto_ver = 3)");
        }
    }

    /** Whether the connection speaks MQTT 5. */
    public boolean isMqtt5() {
        return protoVer == 5;
    }

    /**
     * The bridge's {@code will { }}: published by the remote if the bridge's connection ends without a
     * DISCONNECT.
     */
    public record Will(String topic, byte[] payload, int qos, boolean retain, long delaySeconds,
                       MessageProperties properties) {
        public Will {
            Objects.requireNonNull(topic, "will.topic");
            Objects.requireNonNull(payload, "will.payload");
            Objects.requireNonNull(properties, "will.properties");
            if (qos < 0 || qos > 2) {
                throw new InvalidSettingException("will.qos", "must be 0, 1 or 2, got " + qos);
            }
        }
    }

    /**
     * {@code conn_properties { }}: what the bridge asks for in its MQTT 5 CONNECT.
     *
     * @param sessionExpirySeconds   {@code session_expiry_interval}
     * @param receiveMaximum         {@code receive_maximum}: QoS 1/2 messages the remote may send unacknowledged
     * @param maximumPacketSize      {@code maximum_packet_size}: the largest packet the bridge accepts, 0 for the protocol's limit
     * @param topicAliasMaximum      {@code topic_alias_maximum}: topic aliases the remote may use towards the bridge
     * @param requestProblemInfo     {@code request_problem_infomation} (NanoMQ's spelling)
     * @param requestResponseInfo    {@code request_response_infomation}
     * @param userProperties         {@code user_property}
     */
    public record ConnectProperties(long sessionExpirySeconds, int receiveMaximum, int maximumPacketSize,
                                    int topicAliasMaximum, int requestProblemInfo, int requestResponseInfo,
                                    List<UserProperty> userProperties) {
        /** NanoMQ's and MQTT's defaults. */
        public static final ConnectProperties DEFAULTS = new ConnectProperties(0, 65535, 0, 0, 1, 0, List.of());

        public ConnectProperties {
            userProperties = List.copyOf(userProperties);
            if (receiveMaximum < 1 || receiveMaximum > 65535) {
                throw new InvalidSettingException("conn_properties.receive_maximum", "must be between 1 and 65535, got " + receiveMaximum);
            }
            if (topicAliasMaximum < 0 || topicAliasMaximum > 65535) {
                throw new InvalidSettingException("conn_properties.topic_alias_maximum", "must be between 0 and 65535, got "
                        + topicAliasMaximum);
            }
            if (maximumPacketSize < 0) {
                throw new InvalidSettingException("conn_properties.maximum_packet_size", "must be positive, got " + maximumPacketSize);
            }
        }
    }
}
