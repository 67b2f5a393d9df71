package io.sluice.broker.connection;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.sluice.broker.testing.Clients;
import io.sluice.broker.testing.RawClient;
import io.sluice.broker.testing.TestBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.sluice.broker.testing.RawClient.PUBLISH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SharedSubscriptionTest {
    private TestBroker broker;
    private Mqtt5BlockingClient publisher;

    @BeforeEach
    void start() {
        broker = TestBroker.start();
        publisher = Clients.v5(broker, "publisher");
        publisher.connect();
    }

    @AfterEach
    void stop() {
        publisher.disconnect();
        broker.close();
    }

    private void publish(int count, String topic) {
        for (int i = 0; i < count; i++) {
            publisher.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).payload(("m" + i).getBytes()).send();
        }
    }

    @Test
    void eachMessageGoesToOneMemberRotating() throws Exception {
        List<Mqtt5BlockingClient> members = new ArrayList<>();
        List<Clients.Inbox<Mqtt5Publish>> inboxes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Mqtt5BlockingClient member = Clients.v5(broker, "worker-" + i);
            member.connect();
            inboxes.add(Clients.inbox(member));
            member.subscribeWith().topicFilter("$share/workers/jobs/+").qos(MqttQos.AT_LEAST_ONCE).send();
            members.add(member);
        }
        publish(30, "jobs/a");
        Set<String> all = new HashSet<>();
        for (Clients.Inbox<Mqtt5Publish> inbox : inboxes) {
            for (int i = 0; i < 10; i++) {
                all.add(new String(inbox.next().getPayloadAsBytes()));
            }
            assertNull(inbox.poll(100), "an even share each");
        }
        assertEquals(30, all.size(), "every message exactly once across the group");
        members.forEach(Mqtt5BlockingClient::disconnect);
    }

    @Test
    void aSharedAndAnOrdinarySubscriptionOfOneClientEachGetACopy() throws Exception {
        Mqtt5BlockingClient client = Clients.v5(broker, "both");
        client.connect();
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(client);
        client.subscribeWith().topicFilter("$share/g/t").send();
        client.subscribeWith().topicFilter("t").send();
        publish(1, "t");
        inbox.next();
        inbox.next();
        assertNull(inbox.poll(200));
        client.disconnect();
    }

    @Test
    void whenAMemberLeavesItsUnacknowledgedAndQueuedMessagesGoToTheOthers() throws Exception {
        Mqtt5BlockingClient steady = Clients.v5(broker, "steady");
        steady.connect();
        Clients.Inbox<Mqtt5Publish> steadyInbox = Clients.inbox(steady);
        byte[] receiveMaximum1 = new RawClient.Bytes().u8(0x21).u16(1).toByteArray();
        Set<String> received = new HashSet<>();
        try (RawClient stalled = broker.raw()) {
            stalled.send(RawClient.connect(5, "stalled", 0x02, 60, receiveMaximum1)).read();
            stalled.send(RawClient.subscribe(5, 1, "$share/g/work", 1)).readUntil(RawClient.SUBACK);
            steady.subscribeWith().topicFilter("$share/g/work").qos(MqttQos.AT_LEAST_ONCE).send();
            publish(20, "work");
            // The stalled member takes one message into its window and never acknowledges it.
            RawClient.parsePublish(stalled.readUntil(PUBLISH), true);
            for (int i = 0; i < 10; i++) {
                received.add(new String(steadyInbox.next().getPayloadAsBytes()));
            }
        }
        Mqtt5Publish p;
        while ((p = steadyInbox.poll(500)) != null) {
            received.add(new String(p.getPayloadAsBytes()));
        }
        assertEquals(20, received.size(), "nothing stayed with the member that left: " + received);
        steady.disconnect();
    }

    @Test
    void retainedMessagesAreNotSentForSharedSubscriptions() throws Exception {
        publisher.publishWith().topic("r").retain(true).payload("v".getBytes()).send();
        Mqtt5BlockingClient member = Clients.v5(broker, "member");
        member.connect();
        Clients.Inbox<Mqtt5Publish> inbox = Clients.inbox(member);
        member.subscribeWith().topicFilter("$share/g/r").send();
        assertNull(inbox.poll(300));
        member.disconnect();
        assertTrue(broker.broker().router().retained().size() == 1);
    }
}
