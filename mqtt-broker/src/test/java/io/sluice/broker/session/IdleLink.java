package io.sluice.broker.session;

/** A connection for session tests that does nothing: from {@code sourceHost}, keeping up or not. */
record IdleLink(String sourceHost, boolean keepsUp) implements SessionLink {

    /** A connection from {@code sourceHost} that keeps up. */
    static IdleLink from(String sourceHost) {
        return new IdleLink(sourceHost, true);
    }

    @Override
    public void requestDrain() {
    }

    @Override
    public void takenOver() {
    }

    @Override
    public void kick() {
    }

    @Override
    public ClientInfo info() {
        return null;
    }
}
