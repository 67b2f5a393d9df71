package io.sluice.broker.message;


/**
 * One message on its way to one session: the shared message plus what was decided for this
 * subscriber. Immutable, so a queue, the inflight window and the persistence log may all hold it.
 *
 * @param message         the application message (shared by all subscribers)
 * @param qos             min(published QoS, granted QoS)
 * @param retain          the RETAIN flag to send
 * @param subscriptionIds identifiers of every matching subscription, empty if none
 * @param shareGroup      the shared subscription it came through ("group/filter"), or null
 */
public record Delivery(Message message, int qos, boolean retain, int[] subscriptionIds, String shareGroup) {
    public static final int[] NO_IDS = new int[0];

    /** A delivery through an ordinary subscription without identifiers. */
    public static Delivery of(Message message, int qos, boolean retain) {
        return new Delivery(message, qos, retain, NO_IDS, null);
    }
}
