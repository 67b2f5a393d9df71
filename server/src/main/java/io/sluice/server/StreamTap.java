package io.sluice.server;

import io.sluice.broker.routing.PublishAck;
import io.sluice.broker.routing.Tap;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.UserProperty;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicFilter;
import io.sluice.storage.Header;
import io.sluice.streams.CapturedMessage;
import io.sluice.streams.Stream;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A stream seen through the broker's {@link Tap}: every authorised PUBLISH matching the stream's
 * topic filter is handed to the stream's appender, which never blocks the event loop. The tap holds
 * the QoS 1/2 acknowledgement until the stream holds the record durably under its flush policy; a
 * record the stream refuses (its queue is full, counted there) or cannot write refuses it, so a
 * publisher never waits for a copy that will not come, nor is told it was stored. The payload array is shared, never copied: the broker
 * does not change a payload after ingress.
 */
final class StreamTap implements Tap {
    private final Stream stream;
    private final TopicFilter topicFilter;

    StreamTap(Stream stream) throws InvalidTopicException {
        this.stream = stream;
        this.topicFilter = TopicFilter.parse(stream.topic(), 0);
    }

    Stream stream() {
        return stream;
    }

    /** The stream's topic filter, parsed. */
    TopicFilter topicFilter() {
        return topicFilter;
    }

    @Override
    public String filter() {
        return stream.topic();
    }

    @Override
    public void capture(Message message, PublishAck ack) {
        CapturedMessage captured = new CapturedMessage(message.topic(), message.payload(), message.createdMillis(),
                message.qos(), message.retain(), message.publisherId(), headers(message.properties().userProperties()));
        if (ack == null) {
            stream.capture(captured, null);
            return;
        }
        ack.hold();
        if (!stream.capture(captured, ack)) {
            ack.refused();
        }
    }

    private static List<Header> headers(List<UserProperty> properties) {
        if (properties.isEmpty()) {
            return List.of();
        }
        List<Header> headers = new ArrayList<>(properties.size());
        for (UserProperty property : properties) {
            headers.add(new Header(property.name(), property.value().getBytes(StandardCharsets.UTF_8)));
        }
        return headers;
    }

    @Override
    public boolean holdsAcks() {
        return true;
    }
}
