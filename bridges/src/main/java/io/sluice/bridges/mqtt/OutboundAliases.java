package io.sluice.bridges.mqtt;

import java.util.HashMap;
import java.util.Map;

/**
 * Topic aliases the bridge uses towards an MQTT 5 remote, never more than the remote's Topic Alias
 * Maximum: the first topics sent get aliases 1, 2, ... for the life of the connection, and from the
 * second message on a topic only its alias travels. With a maximum of 0 nothing is aliased.
 * Event loop only; one per connection.
 */
final class OutboundAliases {
    private final int maximum;
    private final Map<String, Integer> aliases = new HashMap<>();

    OutboundAliases(int maximum) {
        this.maximum = maximum;
    }

    /** The alias for {@code topic}: positive if already known to the remote, negative if new (send the topic too), 0 for none. */
    int aliasFor(String topic) {
        Integer known = aliases.get(topic);
        if (known != null) {
            return known;
        }
        if (aliases.size() >= maximum) {
            return 0;
        }
        int alias = aliases.size() + 1;
        aliases.put(topic, alias);
        return -alias;
    }

    /** Forgets a new alias whose PUBLISH was not sent, so the next message sends the topic again. */
    void forget(String topic) {
        aliases.remove(topic);
    }
}
