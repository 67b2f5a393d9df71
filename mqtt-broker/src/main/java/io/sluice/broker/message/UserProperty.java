package io.sluice.broker.message;

/** One MQTT 5 User Property: a name/value pair of UTF-8 strings, repeatable and ordered. */
public record UserProperty(String name, String value) {
}
