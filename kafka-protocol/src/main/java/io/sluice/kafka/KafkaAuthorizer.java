package io.sluice.kafka;

import io.sluice.net.auth.ClientIdentity;

/**
 * What a Kafka client may do with a topic (a stream): read it (fetch, list offsets, commit and
 * fetch group offsets, describe) or write it (produce, create, delete). The server answers these
 * from the ACL file: read is MQTT's subscribe, write is MQTT's publish, on the topic's name.
 * Called on request threads, concurrently.
 */
public interface KafkaAuthorizer {
    /** Allows everything. */
    KafkaAuthorizer ALLOW_ALL = new KafkaAuthorizer() {
        @Override
        public boolean mayRead(ClientIdentity client, String topic) {
            return true;
        }

        @Override
        public boolean mayWrite(ClientIdentity client, String topic) {
            return true;
        }
    };

    boolean mayRead(ClientIdentity client, String topic);

    boolean mayWrite(ClientIdentity client, String topic);
}
