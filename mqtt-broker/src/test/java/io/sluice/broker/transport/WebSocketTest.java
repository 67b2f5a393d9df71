package io.sluice.broker.transport;

import io.sluice.net.EventLoops;
import io.sluice.net.ListenerSpec;
import io.sluice.net.tls.TlsContext;
import io.sluice.net.tls.TlsSettings;
import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.Broker;
import io.sluice.broker.MqttSettings;
import io.sluice.net.limits.Rate;
import io.sluice.broker.metrics.BrokerCounter;
import io.sluice.testing.Eventually;
import io.sluice.broker.testing.Clients;
import io.sluice.testing.LeakWatch;
import io.sluice.broker.testing.Pki;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** MQTT over WebSocket and secure WebSocket, next to plain TCP, on one broker. */
class WebSocketTest {
    @TempDir
    Path dir;
    private Broker broker;
    private EventLoops loops;
    private MqttListener tcp;
    private MqttListener ws;
    private MqttListener wss;
    private Pki pki;

    @BeforeEach
    void start() throws Exception {
        LeakWatch.install();
        pki = Pki.create(dir, "WS CA");
        Pki.Issued server = pki.server("ws-broker");
        TlsContext tls = new TlsContext(new TlsSettings(server.keyFile(), server.certFile(), null, null, false, false,
                false));
        broker = Broker.open(MqttSettings.defaults());
        loops = new EventLoops(2);
        tcp = MqttListener.bind("tcp", TestBroker.loopback(), broker, loops);
        ws = MqttListener.bind(new ListenerSpec("ws", TestBroker.loopback(), null, "/mqtt", 0, Rate.UNLIMITED),
                broker, loops);
        wss = MqttListener.bind(new ListenerSpec("wss", TestBroker.loopback(), tls, "/mqtt", 0, Rate.UNLIMITED),
                broker, loops);
    }

    @AfterEach
    void stop() {
        wss.close();
        ws.close();
        tcp.close();
        loops.close();
        broker.close();
    }

    private Mqtt5BlockingClient overWebSocket(String id, String subprotocol) {
        return MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(ws.localAddress().getPort())
                .webSocketConfig().serverPath("mqtt").subprotocol(subprotocol).applyWebSocketConfig()
                .buildBlocking();
    }

    @Test
    void theHiveMqClientOverWebSocketTalksToTcpClients() throws Exception {
        Mqtt5BlockingClient web = overWebSocket("web", "mqtt");
        web.connect();
        var webInbox = Clients.inbox(web);
        web.subscribeWith().topicFilter("from/tcp").qos(MqttQos.AT_LEAST_ONCE).send();

        Mqtt5BlockingClient plain = MqttClient.builder().useMqttVersion5().identifier("plain").serverHost("127.0.0.1")
                .serverPort(tcp.localAddress().getPort()).buildBlocking();
        plain.connect();
        var plainInbox = Clients.inbox(plain);
        plain.subscribeWith().topicFilter("from/web").qos(MqttQos.AT_LEAST_ONCE).send();

        byte[] large = new byte[200_000]; // spans many WebSocket frames and TCP segments
        Arrays.fill(large, (byte) 7);
        web.publishWith().topic("from/web").qos(MqttQos.AT_LEAST_ONCE).payload(large).send();
        plain.publishWith().topic("from/tcp").qos(MqttQos.EXACTLY_ONCE).payload(new byte[] {1, 2}).send();

        assertArrayEquals(large, plainInbox.next().getPayloadAsBytes());
        Mqtt5Publish toWeb = webInbox.next();
        assertArrayEquals(new byte[] {1, 2}, toWeb.getPayloadAsBytes());
        web.disconnect();
        plain.disconnect();
    }

    @Test
    void mqtt311ClientsMayAskForTheOldSubprotocolName() {
        WebSocket socket = open(new Frames(), "mqttv3.1");
        assertEquals("mqttv3.1", socket.getSubprotocol(), "the handshake answers with the name the client asked for");
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "").join();
        Mqtt3BlockingClient old = MqttClient.builder().useMqttVersion3().identifier("old").serverHost("127.0.0.1")
                .serverPort(ws.localAddress().getPort())
                .webSocketConfig().serverPath("mqtt").subprotocol("mqttv3.1").applyWebSocketConfig()
                .buildBlocking();
        old.connect();
        old.disconnect();
    }

    @Test
    void secureWebSocketWorksWithTheTlsFiles() throws Exception {
        Mqtt5BlockingClient secure = MqttClient.builder().useMqttVersion5().identifier("secure")
                .serverHost("127.0.0.1").serverPort(wss.localAddress().getPort())
                .sslConfig().trustManagerFactory(pki.trust()).applySslConfig()
                .webSocketConfig().serverPath("mqtt").applyWebSocketConfig()
                .buildBlocking();
        secure.connect();
        var inbox = Clients.inbox(secure);
        secure.subscribeWith().topicFilter("wss").send();
        secure.publishWith().topic("wss").payload(new byte[] {9}).send();
        assertEquals(9, inbox.next().getPayloadAsBytes()[0]);
        secure.disconnect();
    }

    /** Collects binary messages and the close of a JDK WebSocket. */
    private static final class Frames implements WebSocket.Listener {
        final BlockingQueue<byte[]> binary = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();

        @Override
        public CompletionStage<?> onBinary(WebSocket socket, ByteBuffer data, boolean last) {
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            binary.add(bytes);
            socket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket socket, int status, String reason) {
            closed.complete(status);
            return null;
        }

        @Override
        public void onError(WebSocket socket, Throwable error) {
            closed.complete(-1);
        }
    }

    private WebSocket open(Frames frames) {
        return open(frames, "mqtt");
    }

    private WebSocket open(Frames frames, String subprotocol) {
        return HttpClient.newHttpClient().newWebSocketBuilder().subprotocols(subprotocol)
                .buildAsync(URI.create("ws://127.0.0.1:" + ws.localAddress().getPort() + "/mqtt"), frames).join();
    }

    @Test
    void aPacketSplitAcrossFramesIsReassembled() throws Exception {
        Frames frames = new Frames();
        WebSocket socket = open(frames);
        assertEquals("mqtt", socket.getSubprotocol());
        byte[] connect = RawClient.connect(4, "fragmented");
        socket.sendBinary(ByteBuffer.wrap(connect, 0, 5), false).join();
        socket.sendBinary(ByteBuffer.wrap(connect, 5, connect.length - 5), true).join();

        byte[] connAck = frames.binary.poll(5, TimeUnit.SECONDS);
        assertNotNull(connAck, "CONNACK in a binary frame");
        assertEquals(0x20, connAck[0] & 0xFF);
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "").join();
    }

    @Test
    void aTextFrameClosesTheConnection() throws Exception {
        Frames frames = new Frames();
        WebSocket socket = open(frames);
        socket.sendText("CONNECT", true).join();
        assertNotNull(frames.closed.get(5, TimeUnit.SECONDS), "MQTT travels in binary frames only");
        Eventually.await(() -> broker.metrics().get(BrokerCounter.DISCONNECTS_PROTOCOL_ERROR) == 1,
                "the violation is counted");
    }

    @Test
    void otherHttpPathsGet404() throws Exception {
        HttpResponse<String> response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + ws.localAddress().getPort() + "/index.html")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(404, response.statusCode());
    }
}
