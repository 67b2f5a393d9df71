package io.sluice.broker.session;

/** Where a delivery owned by a session stands in the QoS exchange with its client. */
public enum DeliveryStage {
    /** Waiting to be sent. */
    QUEUED,
    /** PUBLISH sent; waiting for PUBACK (QoS 1) or PUBREC (QoS 2). */
    AWAITING_ACK,
    /** PUBREC received and PUBREL sent; waiting for PUBCOMP. */
    AWAITING_COMP
}
