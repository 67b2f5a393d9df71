package io.sluice.ringbus.internal;

/**
 * One preallocated ring slot: a message between the broker thread that offered it and the ring
 * thread that takes it. The Disruptor's sequence hands ownership from one to the other.
 */
public final class CaptureEvent {

    public String topic;
    public byte[] payload;
    public long arrivalMs;

    /** Fills the slot; the producer's thread, between claim and publish. */
    public void set(String topic, byte[] payload, long arrivalMs) {
        this.topic = topic;
        this.payload = payload;
        this.arrivalMs = arrivalMs;
    }

    /** Drops the references once the message is taken, so the slot does not keep a payload alive. */
    public void clear() {
        topic = null;
        payload = null;
    }
}
