package io.sluice.bridges.testing;

import java.util.ArrayList;
import java.util.List;

import io.sluice.bridges.mqtt.ForwardRule;
import io.sluice.bridges.mqtt.MqttBridgeSettings;
import io.sluice.bridges.mqtt.ServerAddress;
import io.sluice.bridges.mqtt.SubscriptionRule;

/** Builds {@link MqttBridgeSettings} for tests: NanoMQ's defaults unless a test says otherwise. */
public final class MqttSettings {
    private final String name;
    private final String server;
    private int protoVer = 5;
    private String clientId;
    private boolean cleanStart = true;
    private long backoffMaxMillis = 1000;
    private long cancelTimeoutMillis = 10_000;
    private int maxSendQueueLen;
    private boolean retryQos0;
    private boolean bridgeBit = true;
    private final List<ForwardRule> forwards = new ArrayList<>();
    private final List<SubscriptionRule> subscriptions = new ArrayList<>();
    private MqttBridgeSettings.ConnectProperties connect = MqttBridgeSettings.ConnectProperties.DEFAULTS;

    private MqttSettings(String name, String server) {
        this.name = name;
        this.server = server;
        this.clientId = "test-" + name;
    }

    public static MqttSettings bridge(String name, String server) {
        return new MqttSettings(name, server);
    }

    public MqttSettings protoVer(int value) { protoVer = value; return this; }
    public MqttSettings clientId(String value) { clientId = value; return this; }
    public MqttSettings cleanStart(boolean value) { cleanStart = value; return this; }
    public MqttSettings backoffMaxMillis(long value) { backoffMaxMillis = value; return this; }
    public MqttSettings cancelTimeoutMillis(long value) { cancelTimeoutMillis = value; return this; }
    public MqttSettings maxSendQueueLen(int value) { maxSendQueueLen = value; return this; }
    public MqttSettings retryQos0(boolean value) { retryQos0 = value; return this; }
    public MqttSettings bridgeBit(boolean value) { bridgeBit = value; return this; }
    public MqttSettings connect(MqttBridgeSettings.ConnectProperties value) { connect = value; return this; }

    /** A forward rule with the message's own QoS and RETAIN. */
    public MqttSettings forward(String localTopic, String remoteTopic, String prefix, String suffix) {
        forwards.add(new ForwardRule(localTopic, remoteTopic, -1, -1, prefix, suffix));
        return this;
    }

    /** A subscription rule with No Local, retain as received. */
    public MqttSettings subscribe(String remoteTopic, String localTopic, int qos, String prefix, String suffix) {
        subscriptions.add(new SubscriptionRule(remoteTopic, localTopic, qos, -1, false, 0, true, prefix, suffix));
        return this;
    }

    public MqttBridgeSettings build() {
        return new MqttBridgeSettings(name, ServerAddress.parse(server), protoVer, clientId, 60, cleanStart, null, null,
                backoffMaxMillis, forwards, subscriptions, maxSendQueueLen, cancelTimeoutMillis, retryQos0, bridgeBit,
                null, null, connect, 0, List.of(), true, true);
    }
}
