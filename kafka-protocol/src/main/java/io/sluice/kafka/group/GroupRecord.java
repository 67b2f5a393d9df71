package io.sluice.kafka.group;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A consumer group as it is saved when it settles (Stable after the leader's SyncGroup, or Empty):
 * generation, protocol type and name, leader, and every member with its protocols and assignment, as
 * Kafka's coordinator writes its group metadata. Encoded as a version byte and fixed fields.
 *
 * @param protocolType null for an empty group that never had one
 * @param protocolName null for an empty group
 * @param leaderId     null for an empty group
 */
record GroupRecord(int generation, String protocolType, String protocolName, String leaderId,
                   List<MemberRecord> members) {
    private static final byte VERSION = 1;

    /** One member: who it is, its timeouts, its protocols and its assignment. */
    record MemberRecord(String memberId, String groupInstanceId, String clientId, String clientHost,
                        int sessionTimeoutMs, int rebalanceTimeoutMs, List<Member.Protocol> protocols,
                        byte[] assignment) {
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeInt(generation);
            writeString(out, protocolType);
            writeString(out, protocolName);
            writeString(out, leaderId);
            out.writeInt(members.size());
            for (MemberRecord member : members) {
                writeString(out, member.memberId());
                writeString(out, member.groupInstanceId());
                writeString(out, member.clientId());
                writeString(out, member.clientHost());
                out.writeInt(member.sessionTimeoutMs());
                out.writeInt(member.rebalanceTimeoutMs());
                out.writeInt(member.protocols().size());
                for (Member.Protocol protocol : member.protocols()) {
                    writeString(out, protocol.name());
                    writeBytes(out, protocol.metadata());
                }
                writeBytes(out, member.assignment());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("encoding a consumer group in memory", e);
        }
        return bytes.toByteArray();
    }

    /** Decodes what {@link #encode} wrote; throws IllegalArgumentException naming {@code groupId} for anything else. */
    static GroupRecord decode(String groupId, byte[] encoded) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalArgumentException("consumer group '" + groupId + "': saved state of unknown version "
                        + version);
            }
            int generation = in.readInt();
            String protocolType = readString(in);
            String protocolName = readString(in);
            String leaderId = readString(in);
            int count = in.readInt();
            List<MemberRecord> members = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String memberId = readString(in);
                String instanceId = readString(in);
                String clientId = readString(in);
                String clientHost = readString(in);
                int session = in.readInt();
                int rebalance = in.readInt();
                int protocolCount = in.readInt();
                List<Member.Protocol> protocols = new ArrayList<>(protocolCount);
                for (int p = 0; p < protocolCount; p++) {
                    protocols.add(new Member.Protocol(readString(in), readBytes(in)));
                }
                members.add(new MemberRecord(memberId, instanceId, clientId, clientHost, session, rebalance, protocols,
                        readBytes(in)));
            }
            return new GroupRecord(generation, protocolType, protocolName, leaderId, members);
        } catch (IOException e) {
            throw new IllegalArgumentException("consumer group '" + groupId + "': saved state is damaged: " + e, e);
        }
    }

    private static void writeString(DataOutputStream out, String text) throws IOException {
        out.writeBoolean(text != null);
        if (text != null) {
            out.writeUTF(text);
        }
    }

    private static String readString(DataInputStream in) throws IOException {
        return in.readBoolean() ? in.readUTF() : null;
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > in.available()) {
            throw new IOException("a length of " + length + " bytes where " + in.available() + " are left");
        }
        return in.readNBytes(length);
    }
}
