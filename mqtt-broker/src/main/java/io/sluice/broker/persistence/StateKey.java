package io.sluice.broker.persistence;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The key of a broker-state record. The state shard is compacted by key, so each key names one
 * thing whose latest value is all that matters, and a tombstone under it deletes it.
 *
 * <pre>
 * 'r' | topic UTF-8                                   the retained message of a topic
 * 's' | client id UTF-8                               a persistent session's metadata
 * 'd' | client id UTF-8 | 0x00 | seq i64              one delivery owned by a session
 * 'i' | client id UTF-8 | 0x00 | packet id u16        an inbound QoS 2 packet id awaiting PUBREL
 * 'm' | message id i64                                a message that deliveries point to
 * </pre>
 *
 * Topics and client ids cannot contain U+0000 (the decoder rejects it), so 0x00 separates safely.
 *
 * @param type   one of the type bytes above
 * @param name   topic or client id; empty for messages
 * @param number seq, packet id or message id; 0 when the type has none
 */
record StateKey(byte type, String name, long number) {
    static final byte RETAINED = 'r';
    static final byte SESSION = 's';
    static final byte DELIVERY = 'd';
    static final byte QOS2 = 'i';
    static final byte MESSAGE = 'm';

    static StateKey retained(String topic) {
        return new StateKey(RETAINED, topic, 0);
    }

    static StateKey session(String clientId) {
        return new StateKey(SESSION, clientId, 0);
    }

    static StateKey delivery(String clientId, long seq) {
        return new StateKey(DELIVERY, clientId, seq);
    }

    static StateKey qos2(String clientId, int packetId) {
        return new StateKey(QOS2, clientId, packetId);
    }

    static StateKey message(long id) {
        return new StateKey(MESSAGE, "", id);
    }

    byte[] bytes() {
        byte[] name = this.name.getBytes(StandardCharsets.UTF_8);
        return switch (type) {
            case RETAINED, SESSION -> ByteBuffer.allocate(1 + name.length).put(type).put(name).array();
            case DELIVERY -> ByteBuffer.allocate(1 + name.length + 9).put(type).put(name).put((byte) 0)
                    .putLong(number).array();
            case QOS2 -> ByteBuffer.allocate(1 + name.length + 3).put(type).put(name).put((byte) 0)
                    .putShort((short) number).array();
            case MESSAGE -> ByteBuffer.allocate(9).put(type).putLong(number).array();
            default -> throw new IllegalStateException("unknown state key type " + (char) type);
        };
    }

    static StateKey parse(byte[] key) {
        if (key == null || key.length == 0) {
            throw new CorruptStateException("empty state key");
        }
        byte type = key[0];
        return switch (type) {
            case RETAINED, SESSION -> new StateKey(type, new String(key, 1, key.length - 1, StandardCharsets.UTF_8), 0);
            case DELIVERY -> withNumber(key, 8, ByteBuffer.wrap(key, key.length - 8, 8).getLong());
            case QOS2 -> withNumber(key, 2, ByteBuffer.wrap(key, key.length - 2, 2).getShort() & 0xFFFF);
            case MESSAGE -> {
                if (key.length != 9) {
                    throw new CorruptStateException("message key of " + key.length + " bytes");
                }
                yield new StateKey(MESSAGE, "", ByteBuffer.wrap(key, 1, 8).getLong());
            }
            default -> throw new CorruptStateException("unknown state key type 0x" + Integer.toHexString(type & 0xFF));
        };
    }

    private static StateKey withNumber(byte[] key, int numberBytes, long number) {
        int nameEnd = key.length - numberBytes - 1;
        if (nameEnd < 1 || key[nameEnd] != 0) {
            throw new CorruptStateException("malformed state key of type " + (char) key[0]);
        }
        return new StateKey(key[0], new String(key, 1, nameEnd - 1, StandardCharsets.UTF_8), number);
    }
}
