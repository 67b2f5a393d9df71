package io.sluice.ringbus.internal;

/**
 * One preallocated ring slot: a message between the broker thread that offered it and the ring
 * thread that takes it. The Disruptor's sequence hands ownership from one to the other.
 */
public final class CaptureEvent {

    public String topic;
    public byte[] payload;
    public long arrivalMs;
    /** Runs once the message is durable, or at once if it is refused or there is nothing to wait for; may be null. */
    public Runnable receipt;

    /** Fills the slot; the producer's thread, between claim and publish. */
    public void set(String topic, byte[] payload, long arrivalMs, Runnable receipt) {
        this.topic = topic;
        this.payload = payload;
        this.arrivalMs = arrivalMs;
        this.receipt = receipt;
    }

    /** Drops the references once the message is taken, so the slot does not keep a payload alive. */
    public void clear() {
        topic = null;
        payload = null;
        receipt = null;
    }
}
