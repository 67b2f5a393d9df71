package io.sluice.broker.testing;

import io.sluice.net.testing.ScramClient;

import com.hivemq.client.mqtt.datatypes.MqttUtf8String;
import com.hivemq.client.mqtt.mqtt5.Mqtt5ClientConfig;
import com.hivemq.client.mqtt.mqtt5.auth.Mqtt5EnhancedAuthMechanism;
import com.hivemq.client.mqtt.mqtt5.message.auth.Mqtt5Auth;
import com.hivemq.client.mqtt.mqtt5.message.auth.Mqtt5AuthBuilder;
import com.hivemq.client.mqtt.mqtt5.message.auth.Mqtt5EnhancedAuth;
import com.hivemq.client.mqtt.mqtt5.message.auth.Mqtt5EnhancedAuthBuilder;
import com.hivemq.client.mqtt.mqtt5.message.connect.Mqtt5Connect;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAck;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5Disconnect;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * SCRAM-SHA-256 for the HiveMQ client's enhanced authentication: CONNECT carries the
 * client-first-message, AUTH answers the challenge, and the server's final signature in
 * CONNACK (or AUTH, on re-authentication) is verified, so the client also authenticates the broker.
 */
public final class ScramMechanism implements Mqtt5EnhancedAuthMechanism {
    private final String method;
    private volatile String user;
    private volatile String password;
    private ScramClient scram;
    /** Server signatures that checked out, at CONNACK and at each re-authentication. */
    public final AtomicInteger serverVerified = new AtomicInteger();

    public ScramMechanism(String user, String password) {
        this(user, password, "SCRAM-SHA-256");
    }

    /** With another method name, to see the broker refuse methods it does not offer. */
    public ScramMechanism(String user, String password, String method) {
        this.user = user;
        this.password = password;
        this.method = method;
    }

    /** Re-authentications from now on log in as {@code newUser}: to see the broker refuse a change of identity. */
    public void reauthenticateAs(String newUser, String newPassword) {
        this.user = newUser;
        this.password = newPassword;
    }

    @Override
    public MqttUtf8String getMethod() {
        return MqttUtf8String.of(method);
    }

    @Override
    public int getTimeout() {
        return 10;
    }

    @Override
    public CompletableFuture<Void> onAuth(Mqtt5ClientConfig config, Mqtt5Connect connect, Mqtt5EnhancedAuthBuilder auth) {
        scram = new ScramClient(user, password);
        auth.data(scram.clientFirst());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> onReAuth(Mqtt5ClientConfig config, Mqtt5AuthBuilder auth) {
        scram = new ScramClient(user, password);
        auth.data(scram.clientFirst());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Boolean> onContinue(Mqtt5ClientConfig config, Mqtt5Auth auth, Mqtt5AuthBuilder next) {
        try {
            next.data(scram.clientFinal(bytes(auth)));
            return CompletableFuture.completedFuture(true);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> onAuthSuccess(Mqtt5ClientConfig config, Mqtt5ConnAck connAck) {
        return CompletableFuture.completedFuture(verified(connAck.getEnhancedAuth().map(ScramMechanism::bytes).orElse(null)));
    }

    @Override
    public CompletableFuture<Boolean> onReAuthSuccess(Mqtt5ClientConfig config, Mqtt5Auth auth) {
        return CompletableFuture.completedFuture(verified(bytes(auth)));
    }

    private boolean verified(byte[] serverFinal) {
        boolean ok = serverFinal != null && scram.serverFinalValid(serverFinal);
        if (ok) {
            serverVerified.incrementAndGet();
        }
        return ok;
    }

    private static byte[] bytes(Mqtt5EnhancedAuth auth) {
        ByteBuffer data = auth.getData().orElse(ByteBuffer.allocate(0)).duplicate();
        byte[] out = new byte[data.remaining()];
        data.get(out);
        return out;
    }

    @Override
    public void onAuthRejected(Mqtt5ClientConfig config, Mqtt5ConnAck connAck) {
    }

    @Override
    public void onReAuthRejected(Mqtt5ClientConfig config, Mqtt5Disconnect disconnect) {
    }

    @Override
    public void onAuthError(Mqtt5ClientConfig config, Throwable cause) {
    }

    @Override
    public void onReAuthError(Mqtt5ClientConfig config, Throwable cause) {
    }
}
