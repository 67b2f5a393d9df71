package io.sluice.broker.security;

import io.sluice.net.auth.ClientIdentity;
/** Decides, per topic, what an authenticated client may publish and subscribe to. */
public interface Authorizer {
    /** Allows everything. */
    Authorizer ALLOW_ALL = new Authorizer() {
        @Override
        public boolean mayPublish(ClientIdentity client, String topic) {
            return true;
        }

        @Override
        public boolean maySubscribe(ClientIdentity client, String filter) {
            return true;
        }
    };

    /** What happens to a client whose PUBLISH is denied ({@code auth.deny_action}). */
    enum DenyAction {
        /** Drop the message (MQTT 5 QoS 1/2 publishers learn it from reason code 0x87). */
        IGNORE,
        /** End the connection (DISCONNECT 0x87 for MQTT 5). */
        DISCONNECT
    }

    /** Whether {@code client} may publish to the topic name {@code topic}. Called on every PUBLISH. */
    boolean mayPublish(ClientIdentity client, String topic);

    /** Whether {@code client} may subscribe to {@code filter} (without any {@code $share/<group>/} prefix). */
    boolean maySubscribe(ClientIdentity client, String filter);

    /** What to do after {@link #mayPublish} said no. */
    default DenyAction denyAction() {
        return DenyAction.IGNORE;
    }
}
