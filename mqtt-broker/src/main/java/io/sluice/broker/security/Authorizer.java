package io.sluice.broker.security;

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

    boolean mayPublish(ClientIdentity client, String topic);

    boolean maySubscribe(ClientIdentity client, String filter);
}
