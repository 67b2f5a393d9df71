package io.sluice.bridges;

import java.util.Objects;

/** One MQTT 5 User Property carried across a bridge: a name/value pair, repeatable and ordered. */
public record UserProperty(String name, String value) {
    public UserProperty {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }
}
