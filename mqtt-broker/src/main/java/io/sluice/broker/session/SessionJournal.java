package io.sluice.broker.session;

/**
 * Where sessions report every change that must survive a restart; implemented by the state
 * journal of the persistence layer, or {@link #NONE}. Sessions call it with their lock held, so
 * the calls of one session arrive in the order the changes happened; implementations must only
 * enqueue, never block.
 */
public interface SessionJournal {
    /** Keeps nothing: the broker runs without persistence. */
    SessionJournal NONE = new SessionJournal() {
        @Override
        public boolean enabled() {
            return false;
        }

        @Override
        public void sessionSaved(SessionSnapshot snapshot) {
        }

        @Override
        public void sessionEnded(String clientId) {
        }

        @Override
        public void deliverySaved(String clientId, StoredDelivery delivery) {
        }

        @Override
        public void deliveryRemoved(String clientId, long seq) {
        }

        @Override
        public void qos2Received(String clientId, int packetId) {
        }

        @Override
        public void qos2Released(String clientId, int packetId) {
        }

        @Override
        public void whenWritten(Runnable done) {
            done.run();
        }
    };

    /** Whether anything is kept; when false sessions skip building what they would report. */
    boolean enabled();

    /** The session's metadata changed: expiry, subscriptions, connection state or delayed will. */
    void sessionSaved(SessionSnapshot snapshot);

    /** The session ended for good: forget it and everything it held. */
    void sessionEnded(String clientId);

    /** A delivery was queued or moved on in its QoS exchange. */
    void deliverySaved(String clientId, StoredDelivery delivery);

    /** A delivery completed, expired or left the session. */
    void deliveryRemoved(String clientId, long seq);

    /** An inbound QoS 2 packet id is held until PUBREL, so that a resent PUBLISH is not routed twice. */
    void qos2Received(String clientId, int packetId);

    /** The inbound QoS 2 exchange of a packet id ended. */
    void qos2Released(String clientId, int packetId);

    /**
     * Runs {@code done} once every change reported before this call (by sessions and by the
     * retained store, which share the journal) is written under the journal's flush policy.
     * May run it on another thread; must not block the caller.
     */
    void whenWritten(Runnable done);
}
