package io.sluice.bridges;

/**
 * One forward rule of one bridge, as the server hands it to the broker as a tap: it takes every
 * local message that matches {@link #filter()} and passes it to its bridge's backlog (or, for an
 * unstored QoS 0 message, straight to the remote). Never blocks: it runs on the publisher's event loop.
 */
public interface Forwarder {

    /** The local topic filter ({@code local_topic}). */
    String filter();

    /** The bridge the rule belongs to. */
    String bridge();

    /**
     * Takes one message. {@code release} is the held acknowledgement of its QoS 1/2 publisher, or null;
     * true means the forwarder took it over: it runs it once the message is durable in the backlog, or
     * refuses it ({@code io.sluice.storage.Receipt#refuse}) when the backlog does not store it; false
     * that this rule does not store the message at all ($SYS, a loop, an unstored QoS 0 copy, an
     * invalid mapped topic; counted where it is a fault) and the caller releases it now.
     */
    boolean forward(BridgeMessage message, Runnable release);
}
