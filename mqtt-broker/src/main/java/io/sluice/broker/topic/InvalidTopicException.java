package io.sluice.broker.topic;

/** A topic name or topic filter that breaks the rules of MQTT 3.1.1 §4.7 / MQTT 5 §4.7. */
public final class InvalidTopicException extends Exception {
    private static final long serialVersionUID = 1L;

    public InvalidTopicException(String topic, String reason) {
        super("invalid topic '" + topic + "': " + reason);
    }
}
