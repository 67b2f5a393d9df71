package io.sluice.broker.testing;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A deliberately dumb MQTT client over a plain socket, for the cases real clients refuse to
 * produce: malformed packets, protocol violations, unacknowledged deliveries. It writes bytes
 * exactly as the test builds them and reads raw packets back.
 */
public final class RawClient implements AutoCloseable {
    /** One packet as read: the first byte and the bytes after the remaining length. */
    public record Packet(int type, int flags, byte[] body) {
        public int u8(int index) {
            return body[index] & 0xFF;
        }

        public int u16(int index) {
            return (u8(index) << 8) | u8(index + 1);
        }
    }

    /** A PUBLISH as received, with its MQTT 5 properties by id (repeatable ones in order). */
    public record Publish(String topic, int qos, boolean dup, boolean retain, int packetId,
                          java.util.Map<Integer, java.util.List<Object>> properties, byte[] payload) {
        public Object property(int id) {
            java.util.List<Object> values = properties.get(id);
            return values == null ? null : values.get(0);
        }
    }

    /** Parses a PUBLISH packet; {@code v5} says whether it carries properties. */
    public static Publish parsePublish(Packet packet, boolean v5) {
        Reader r = new Reader(packet.body());
        String topic = r.string();
        int qos = (packet.flags() >> 1) & 3;
        int packetId = qos > 0 ? r.u16() : 0;
        java.util.Map<Integer, java.util.List<Object>> props = v5 ? r.properties() : java.util.Map.of();
        return new Publish(topic, qos, (packet.flags() & 8) != 0, (packet.flags() & 1) != 0, packetId, props,
                r.rest());
    }

    /** The reason code and properties of a CONNACK or DISCONNECT body (MQTT 5). */
    public static java.util.Map<Integer, java.util.List<Object>> properties(byte[] body, int offset) {
        Reader r = new Reader(body);
        r.pos = offset;
        return r.pos < body.length ? r.properties() : java.util.Map.of();
    }

    /** Reads MQTT fields from a packet body. */
    static final class Reader {
        private final byte[] b;
        int pos;

        Reader(byte[] b) {
            this.b = b;
        }

        int u8() {
            return b[pos++] & 0xFF;
        }

        int u16() {
            return (u8() << 8) | u8();
        }

        long u32() {
            return ((long) u16() << 16) | u16();
        }

        int vbi() {
            int value = 0;
            int shift = 0;
            int digit;
            do {
                digit = u8();
                value |= (digit & 0x7F) << shift;
                shift += 7;
            } while ((digit & 0x80) != 0);
            return value;
        }

        String string() {
            int n = u16();
            String s = new String(b, pos, n, StandardCharsets.UTF_8);
            pos += n;
            return s;
        }

        byte[] binary() {
            int n = u16();
            byte[] out = java.util.Arrays.copyOfRange(b, pos, pos + n);
            pos += n;
            return out;
        }

        byte[] rest() {
            return java.util.Arrays.copyOfRange(b, pos, b.length);
        }

        java.util.Map<Integer, java.util.List<Object>> properties() {
            int end = vbi();
            end += pos;
            java.util.Map<Integer, java.util.List<Object>> props = new java.util.LinkedHashMap<>();
            while (pos < end) {
                int id = vbi();
                Object value = switch (id) {
                    case 0x01, 0x17, 0x19, 0x24, 0x25, 0x28, 0x29, 0x2A -> u8();
                    case 0x13, 0x21, 0x22, 0x23 -> u16();
                    case 0x02, 0x11, 0x18, 0x27 -> u32();
                    case 0x0B -> vbi();
                    case 0x09, 0x16 -> binary();
                    case 0x26 -> string() + "=" + string();
                    default -> string();
                };
                props.computeIfAbsent(id, k -> new java.util.ArrayList<>()).add(value);
            }
            return props;
        }
    }

    public static final int CONNACK = 2;
    public static final int PUBLISH = 3;
    public static final int PUBACK = 4;
    public static final int PUBREC = 5;
    public static final int PUBREL = 6;
    public static final int PUBCOMP = 7;
    public static final int SUBACK = 9;
    public static final int DISCONNECT = 14;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    RawClient(String host, int port) {
        this(open(host, port));
    }

    /** A client over a socket the test opened itself, e.g. a TLS one. */
    public RawClient(Socket socket) {
        try {
            this.socket = socket;
            socket.setSoTimeout(5_000);
            socket.setTcpNoDelay(true);
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new IllegalStateException("cannot use " + socket, e);
        }
    }

    private static Socket open(String host, int port) {
        try {
            return new Socket(host, port);
        } catch (IOException e) {
            throw new IllegalStateException("cannot connect to " + host + ":" + port, e);
        }
    }

    public RawClient send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Reads the next packet; fails the test if none arrives within the socket timeout. */
    public Packet read() throws IOException {
        int first = in.read();
        if (first < 0) {
            throw new EOFException("connection closed by the broker");
        }
        int length = 0;
        int shift = 0;
        int digit;
        do {
            digit = in.readUnsignedByte();
            length |= (digit & 0x7F) << shift;
            shift += 7;
        } while ((digit & 0x80) != 0);
        byte[] body = new byte[length];
        in.readFully(body);
        return new Packet(first >> 4, first & 0x0F, body);
    }

    /** Reads packets until one of {@code type} arrives. */
    public Packet readUntil(int type) throws IOException {
        Packet packet;
        do {
            packet = read();
        } while (packet.type() != type);
        return packet;
    }

    /** True if the broker closes the connection (after any packets it still sends) within the timeout. */
    public boolean closedByBroker() throws IOException {
        try {
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true; // reset
        }
    }

    public void setTimeoutMillis(int millis) throws SocketException {
        socket.setSoTimeout(millis);
    }

    /** Whether the test closed this client's socket. */
    public boolean isClosed() {
        return socket.isClosed();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    // ---- packet builders ----

    /** CONNECT for {@code level} 3 (MQTT 3.1, "MQIsdp"), 4 (3.1.1) or 5, clean start, no will, keepalive 60. */
    public static byte[] connect(int level, String clientId) {
        return connect(level, clientId, 0x02, 60, new byte[0]);
    }

    /** CONNECT with explicit flags, keepalive and (MQTT 5) raw properties bytes. */
    public static byte[] connect(int level, String clientId, int flags, int keepAlive, byte[] properties) {
        Bytes vh = new Bytes().string(level == 3 ? "MQIsdp" : "MQTT").u8(level).u8(flags).u16(keepAlive);
        if (level == 5) {
            vh.vbi(properties.length).raw(properties);
        }
        vh.string(clientId);
        return packet(0x10, vh.toByteArray());
    }

    public static byte[] subscribe(int level, int packetId, String filter, int options) {
        Bytes b = new Bytes().u16(packetId);
        if (level == 5) {
            b.vbi(0);
        }
        b.string(filter).u8(options);
        return packet(0x82, b.toByteArray());
    }

    public static byte[] publish(int level, String topic, int qos, int packetId, byte[] properties, byte[] payload) {
        Bytes b = new Bytes().string(topic);
        if (qos > 0) {
            b.u16(packetId);
        }
        if (level == 5) {
            b.vbi(properties.length).raw(properties);
        }
        b.raw(payload);
        return packet(0x30 | (qos << 1), b.toByteArray());
    }

    public static byte[] ack(int type, int packetId) {
        int flags = type == PUBREL ? 0x02 : 0;
        return packet((type << 4) | flags, new Bytes().u16(packetId).toByteArray());
    }

    public static byte[] pingreq() {
        return new byte[] {(byte) 0xC0, 0};
    }

    /** A packet from its first byte and body, with the remaining length encoded in between. */
    public static byte[] packet(int firstByte, byte[] body) {
        return new Bytes().u8(firstByte).vbi(body.length).raw(body).toByteArray();
    }

    /** A tiny big-endian writer for MQTT fields. */
    public static final class Bytes {
        private final ByteArrayOutputStream buf = new ByteArrayOutputStream();

        public Bytes u8(int v) {
            buf.write(v);
            return this;
        }

        public Bytes u16(int v) {
            return u8(v >> 8).u8(v & 0xFF);
        }

        public Bytes u32(long v) {
            return u16((int) (v >>> 16)).u16((int) (v & 0xFFFF));
        }

        public Bytes vbi(int v) {
            int remaining = v;
            do {
                int digit = remaining & 0x7F;
                remaining >>>= 7;
                u8(remaining > 0 ? digit | 0x80 : digit);
            } while (remaining > 0);
            return this;
        }

        public Bytes string(String s) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            return u16(bytes.length).raw(bytes);
        }

        public Bytes raw(byte[] bytes) {
            buf.writeBytes(bytes);
            return this;
        }

        public byte[] toByteArray() {
            return buf.toByteArray();
        }
    }
}
