package io.sluice.bridges.backlog;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.MessageProperties;
import io.sluice.bridges.UserProperty;

/**
 * One message waiting in a bridge's backlog: where it goes ({@code target}: the remote topic, or
 * the Kafka topic) and the message as it will be sent. It is stored as the value of one record of
 * the backlog's shard, the record's timestamp being the message's creation time.
 *
 * <h2>Value layout</h2> Big-endian; {@code str} is an i32 byte length (-1 for null) and UTF-8 bytes.
 * <pre>
 *  offset  size  field
 *  0       1     format version, 1
 *  1       1     flags: bits 0-1 QoS, bit 2 RETAIN, bit 3 properties follow, bit 4 publisher id follows,
 *                bit 5 key follows
 *  2       8     created, epoch milliseconds
 *  10      str   target
 *          str   topic (the local topic it was published to)
 *          [str  publisher id]                      if flag bit 4
 *          [str  key (bytes)]                       if flag bit 5
 *          [i8   payload format indicator, -1 absent  if flag bit 3
 *           i64  expiry interval seconds, -1 absent
 *           str  content type
 *           str  response topic
 *           str  correlation data (bytes)
 *           i32  user property count, then str name, str value for each]
 *          rest  payload
 * </pre>
 * Example: a QoS 1 message of 2 bytes {@code 0x01 0x02} from {@code a} to {@code b} with no publisher
 * and no properties is {@code 01 01 <8 bytes time> 00000001 62 00000001 61 01 02}.
 *
 * @param target  where it goes
 * @param key     the Kafka record key, or null
 * @param message the message; its QoS and RETAIN are the forwarded ones
 */
public record BacklogRecord(String target, byte[] key, BridgeMessage message) {
    private static final byte VERSION = 1;
    private static final int RETAIN = 1 << 2;
    private static final int HAS_PROPERTIES = 1 << 3;
    private static final int HAS_PUBLISHER = 1 << 4;
    private static final int HAS_KEY = 1 << 5;

    /** A record without a key (MQTT bridges). */
    public BacklogRecord(String target, BridgeMessage message) {
        this(target, null, message);
    }

    /** The record's value bytes. */
    public byte[] encode() {
        MessageProperties props = message.properties();
        boolean hasProps = !props.isEmpty();
        byte[] target = utf8(this.target);
        byte[] topic = utf8(message.topic());
        byte[] publisher = utf8(message.publisherId());
        byte[] contentType = hasProps ? utf8(props.contentType()) : null;
        byte[] responseTopic = hasProps ? utf8(props.responseTopic()) : null;
        int size = 10 + str(target) + str(topic) + (publisher != null ? str(publisher) : 0)
                + (key != null ? str(key) : 0) + message.payload().length;
        List<byte[]> userProps = new ArrayList<>();
        if (hasProps) {
            size += 1 + 8 + str(contentType) + str(responseTopic) + str(props.correlationData()) + 4;
            for (UserProperty property : props.userProperties()) {
                byte[] name = utf8(property.name());
                byte[] value = utf8(property.value());
                userProps.add(name);
                userProps.add(value);
                size += str(name) + str(value);
            }
        }
        int flags = message.qos() | (message.retain() ? RETAIN : 0) | (hasProps ? HAS_PROPERTIES : 0)
                | (publisher != null ? HAS_PUBLISHER : 0) | (key != null ? HAS_KEY : 0);
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(VERSION).put((byte) flags).putLong(message.createdMillis());
        put(out, target);
        put(out, topic);
        if (publisher != null) {
            put(out, publisher);
        }
        if (key != null) {
            put(out, key);
        }
        if (hasProps) {
            out.put((byte) props.payloadFormat()).putLong(props.expiryInterval());
            put(out, contentType);
            put(out, responseTopic);
            put(out, props.correlationData());
            out.putInt(userProps.size() / 2);
            for (byte[] bytes : userProps) {
                put(out, bytes);
            }
        }
        out.put(message.payload());
        return out.array();
    }

    /** Reads a value written by {@link #encode}; throws {@link IllegalArgumentException} for anything else. */
    public static BacklogRecord decode(byte[] value) {
        try {
            ByteBuffer in = ByteBuffer.wrap(value);
            byte version = in.get();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown backlog record version " + version);
            }
            int flags = in.get();
            long created = in.getLong();
            String target = string(in);
            String topic = string(in);
            String publisher = (flags & HAS_PUBLISHER) != 0 ? string(in) : null;
            byte[] key = (flags & HAS_KEY) != 0 ? bytes(in) : null;
            MessageProperties props = (flags & HAS_PROPERTIES) != 0 ? properties(in) : MessageProperties.NONE;
            byte[] payload = new byte[in.remaining()];
            in.get(payload);
            return new BacklogRecord(target, key, new BridgeMessage(topic, payload, flags & 3, (flags & RETAIN) != 0, props,
                    publisher, created));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a backlog record (" + value.length + " bytes): " + e.getMessage(), e);
        }
    }

    private static MessageProperties properties(ByteBuffer in) {
        int format = in.get();
        long expiry = in.getLong();
        String contentType = string(in);
        String responseTopic = string(in);
        byte[] correlation = bytes(in);
        int count = in.getInt();
        List<UserProperty> userProps = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            userProps.add(new UserProperty(string(in), string(in)));
        }
        return new MessageProperties(format, expiry, contentType, responseTopic, correlation, userProps);
    }

    private static byte[] utf8(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    private static int str(byte[] bytes) {
        return 4 + (bytes == null ? 0 : bytes.length);
    }

    private static void put(ByteBuffer out, byte[] bytes) {
        if (bytes == null) {
            out.putInt(-1);
        } else {
            out.putInt(bytes.length).put(bytes);
        }
    }

    private static byte[] bytes(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0) {
            return null;
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }

    private static String string(ByteBuffer in) {
        byte[] bytes = bytes(in);
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
