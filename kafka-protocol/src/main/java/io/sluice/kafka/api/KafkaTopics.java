package io.sluice.kafka.api;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.Uuid;

import io.sluice.streams.Stream;
import io.sluice.streams.Streams;

/**
 * Streams as Kafka topics: looked up by name or by topic id. A topic's id is derived from its
 * name (a name-based UUID), so it is the same after every restart without being stored, never
 * zero (the version bits are set), and the same for a stream deleted and created again.
 */
public final class KafkaTopics {
    private final Streams streams;
    private final Map<Uuid, String> namesById = new ConcurrentHashMap<>();

    public KafkaTopics(Streams streams) {
        this.streams = streams;
    }

    /** The topic id of the stream called {@code name}. */
    public static Uuid topicId(String name) {
        UUID uuid = UUID.nameUUIDFromBytes(("sluice-stream/" + name).getBytes(StandardCharsets.UTF_8));
        return new Uuid(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    public Streams streams() {
        return streams;
    }

    /** The stream called {@code name}, or null. */
    public Stream byName(String name) {
        return name == null ? null : streams.get(name);
    }

    /** The stream whose topic id is {@code id}, or null. */
    public Stream byId(Uuid id) {
        if (id == null || Uuid.ZERO_UUID.equals(id)) {
            return null;
        }
        String name = namesById.get(id);
        if (name == null) {
            for (Stream stream : streams.all()) {
                namesById.putIfAbsent(topicId(stream.name()), stream.name());
            }
            name = namesById.get(id);
        }
        return name == null ? null : streams.get(name);
    }

    /** A topic named by name, or (from the versions that use ids) by id when the name is empty. */
    public Stream find(String name, Uuid id) {
        return name != null && !name.isEmpty() ? byName(name) : byId(id);
    }
}
