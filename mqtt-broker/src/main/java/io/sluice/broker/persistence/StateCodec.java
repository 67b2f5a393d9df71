package io.sluice.broker.persistence;

import io.sluice.broker.message.Delivery;
import io.sluice.broker.message.Message;
import io.sluice.broker.message.MessageProperties;
import io.sluice.broker.message.UserProperty;
import io.sluice.broker.routing.Subscription;
import io.sluice.broker.session.DeliveryStage;
import io.sluice.broker.session.SessionSnapshot;
import io.sluice.broker.session.StoredDelivery;
import io.sluice.broker.session.Will;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicFilter;

import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The byte layout of the broker-state records (values of the state shard; keys are described in
 * {@link StateKey}). Every value starts with a format version byte. All integers are big-endian;
 * "bytes" is i32 length + bytes (-1 for null); a "string" is UTF-8 as "bytes"; a "count" is i32.
 *
 * <pre>
 * message      version u8 | topic string | qos u8 | retain u8 | publisher string | created i64 (epoch ms)
 *              | payloadFormat i8 | expiry i64 (-1 none) | contentType string | responseTopic string
 *              | correlation bytes | userProperties count, (name string, value string)* | payload bytes
 * session      version u8 | expiry i64 | disconnectedAt i64 (0 while connected)
 *              | subscriptions count, subscription* | will u8 (0/1) [ | delay i64 | dueAt i64 | message ]
 * subscription filter string | qos u8 | flags u8 (1 no local, 2 retain as published) | retainHandling u8
 *              | identifier i32
 * delivery     version u8 | messageId i64 | qos u8 | retain u8 | subscriptionIds count, i32*
 *              | shareGroup string | packetId u16 | stage u8 (0 queued, 1 awaiting ack, 2 awaiting comp)
 * </pre>
 *
 * Version 2 is written. Version 1, still read, had u16 strings ({@code 0xFFFF} for null) and u16
 * counts: a 65,535-byte string read back as null, and a longer one (a topic of invalid UTF-8
 * bytes grows threefold when decoded and encoded again) wrapped around, so records the broker
 * had acknowledged did not read back.
 *
 * A record that does not decode (truncated, unknown version) throws {@link CorruptStateException},
 * which the loader counts and skips: one bad record costs that record, not the broker.
 */
final class StateCodec {
    /** The format written. */
    static final byte VERSION = 2;
    /** The format with u16 strings and counts, still read. */
    static final byte VERSION_1 = 1;
    private static final int V1_NULL_STRING = 0xFFFF;

    private StateCodec() {
    }

    // ---- messages ----

    static byte[] message(Message m) {
        Writer w = new Writer();
        w.u8(VERSION);
        writeMessage(w, m);
        return w.bytes();
    }

    static Message message(byte[] value) {
        Reader r = new Reader(value);
        return readMessage(r);
    }

    private static void writeMessage(Writer w, Message m) {
        MessageProperties p = m.properties();
        w.string(m.topic()).u8(m.qos()).u8(m.retain() ? 1 : 0).string(m.publisherId()).i64(m.createdMillis());
        w.u8(p.payloadFormat()).i64(p.expiryInterval()).string(p.contentType()).string(p.responseTopic())
                .bytes(p.correlationData());
        w.count(p.userProperties().size());
        for (UserProperty user : p.userProperties()) {
            w.string(user.name()).string(user.value());
        }
        w.bytes(m.payload());
    }

    private static Message readMessage(Reader r) {
        String topic = r.string();
        int qos = r.u8();
        boolean retain = r.u8() != 0;
        String publisher = r.string();
        long created = r.i64();
        int payloadFormat = r.i8();
        long expiry = r.i64();
        String contentType = r.string();
        String responseTopic = r.string();
        byte[] correlation = r.bytes();
        int users = r.count();
        List<UserProperty> userProperties = new ArrayList<>(users);
        for (int i = 0; i < users; i++) {
            userProperties.add(new UserProperty(r.string(), r.string()));
        }
        byte[] payload = r.bytes();
        MessageProperties properties = payloadFormat < 0 && expiry < 0 && contentType == null
                && responseTopic == null && correlation == null && userProperties.isEmpty()
                ? MessageProperties.NONE
                : new MessageProperties(payloadFormat, expiry, contentType, responseTopic, correlation, userProperties);
        return new Message(topic, payload, qos, retain, properties, publisher, created);
    }

    // ---- sessions ----

    static byte[] session(SessionSnapshot s) {
        Writer w = new Writer();
        w.u8(VERSION).i64(s.expiryInterval()).i64(s.disconnectedAtMillis());
        w.count(s.subscriptions().size());
        for (Subscription sub : s.subscriptions()) {
            int flags = (sub.noLocal() ? 1 : 0) | (sub.retainAsPublished() ? 2 : 0);
            w.string(sub.filter().raw()).u8(sub.qos()).u8(flags).u8(sub.retainHandling()).i32(sub.identifier());
        }
        Will will = s.pendingWill();
        w.u8(will == null ? 0 : 1);
        if (will != null) {
            w.i64(will.delaySeconds()).i64(s.willDueAtMillis());
            writeMessage(w, will.message());
        }
        return w.bytes();
    }

    static SessionSnapshot session(String clientId, byte[] value) {
        Reader r = new Reader(value);
        long expiry = r.i64();
        long disconnectedAt = r.i64();
        int count = r.count();
        List<Subscription> subscriptions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            subscriptions.add(readSubscription(r));
        }
        Will will = null;
        long dueAt = 0;
        if (r.u8() != 0) {
            long delay = r.i64();
            dueAt = r.i64();
            will = new Will(readMessage(r), delay);
        }
        return new SessionSnapshot(clientId, expiry, disconnectedAt, subscriptions, will, dueAt);
    }

    private static Subscription readSubscription(Reader r) {
        String raw = r.string();
        int qos = r.u8();
        int flags = r.u8();
        int retainHandling = r.u8();
        int identifier = r.i32();
        try {
            return new Subscription(TopicFilter.parse(raw, 0), qos, (flags & 1) != 0, (flags & 2) != 0,
                    retainHandling, identifier);
        } catch (InvalidTopicException e) {
            throw new CorruptStateException("stored subscription filter '" + raw + "' is invalid: " + e.getMessage());
        }
    }

    // ---- deliveries ----

    static byte[] delivery(StoredDelivery d, long messageId) {
        Writer w = new Writer();
        Delivery delivery = d.delivery();
        w.u8(VERSION).i64(messageId).u8(delivery.qos()).u8(delivery.retain() ? 1 : 0);
        w.count(delivery.subscriptionIds().length);
        for (int id : delivery.subscriptionIds()) {
            w.i32(id);
        }
        w.string(delivery.shareGroup()).u16(d.packetId()).u8(d.stage().ordinal());
        return w.bytes();
    }

    /** A delivery record, still pointing at its message by id. */
    record DeliveryRecord(long messageId, int qos, boolean retain, int[] subscriptionIds, String shareGroup,
                          int packetId, DeliveryStage stage) {
        StoredDelivery resolve(long seq, Message message) {
            return new StoredDelivery(seq, new Delivery(message, qos, retain, subscriptionIds, shareGroup), packetId,
                    stage);
        }
    }

    static DeliveryRecord delivery(byte[] value) {
        Reader r = new Reader(value);
        long messageId = r.i64();
        int qos = r.u8();
        boolean retain = r.u8() != 0;
        int[] ids = new int[r.count()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = r.i32();
        }
        String shareGroup = r.string();
        int packetId = r.u16();
        int stage = r.u8();
        if (stage >= DeliveryStage.values().length) {
            throw new CorruptStateException("unknown delivery stage " + stage);
        }
        return new DeliveryRecord(messageId, qos, retain, ids, shareGroup, packetId, DeliveryStage.values()[stage]);
    }

    // ---- primitives ----

    /** Appends fields to a growing buffer. */
    static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream(128);

        Writer u8(int v) {
            out.write(v);
            return this;
        }

        Writer u16(int v) {
            out.write(v >>> 8);
            out.write(v);
            return this;
        }

        Writer i32(int v) {
            return u16(v >>> 16).u16(v & 0xFFFF);
        }

        Writer i64(long v) {
            return i32((int) (v >>> 32)).i32((int) v);
        }

        Writer count(int n) {
            return i32(n);
        }

        Writer string(String s) {
            return bytes(s == null ? null : s.getBytes(StandardCharsets.UTF_8));
        }

        Writer bytes(byte[] b) {
            if (b == null) {
                return i32(-1);
            }
            i32(b.length);
            out.writeBytes(b);
            return this;
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }

    /** Reads fields back, checking the version first and turning any underflow into corruption. */
    static final class Reader {
        private final ByteBuffer in;
        private final boolean v1;

        Reader(byte[] value) {
            this.in = ByteBuffer.wrap(value);
            int version = u8();
            if (version != VERSION && version != VERSION_1) {
                throw new CorruptStateException("unknown state record version " + version);
            }
            this.v1 = version == VERSION_1;
        }

        int u8() {
            try {
                return in.get() & 0xFF;
            } catch (BufferUnderflowException e) {
                throw new CorruptStateException("state record truncated at byte " + in.position());
            }
        }

        int i8() {
            return (byte) u8();
        }

        int u16() {
            return (u8() << 8) | u8();
        }

        int i32() {
            return (u16() << 16) | u16();
        }

        long i64() {
            return ((long) i32() << 32) | (i32() & 0xFFFFFFFFL);
        }

        /** A number of entries that follow, each at least one byte: more than the bytes left is corruption. */
        int count() {
            int n = v1 ? u16() : i32();
            if (n < 0 || n > in.remaining()) {
                throw new CorruptStateException("state record announces " + n + " entries with " + in.remaining()
                        + " bytes left");
            }
            return n;
        }

        String string() {
            byte[] b = v1 ? v1String() : bytes();
            return b == null ? null : new String(b, StandardCharsets.UTF_8);
        }

        private byte[] v1String() {
            int length = u16();
            return length == V1_NULL_STRING ? null : take(length);
        }

        byte[] bytes() {
            int length = i32();
            if (length < -1) {
                throw new CorruptStateException("state record announces " + length + " bytes");
            }
            return length == -1 ? null : take(length);
        }

        private byte[] take(int length) {
            if (length > in.remaining()) {
                throw new CorruptStateException("state record truncated: " + length + " bytes announced, "
                        + in.remaining() + " left");
            }
            byte[] b = new byte[length];
            in.get(b);
            return b;
        }
    }
}
