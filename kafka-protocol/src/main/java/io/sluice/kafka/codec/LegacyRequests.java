package io.sluice.kafka.codec;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.protocol.Errors;

/**
 * The two advertised request versions that kafka-clients can no longer parse, answered by hand.
 *
 * <h2>ListOffsets v0</h2>
 * Sent by librdkafka before 1.8 for offset resets and watermarks.
 * <pre>
 *  request  (after a v1 header): replica_id int32 | [topic string16 | [partition int32 | timestamp int64 | max_num_offsets int32]]
 *  response (header v0):         [topic string16 | [partition int32 | error_code int16 | [offset int64]]]
 * </pre>
 * At most one offset is returned per partition, as Kafka 2.x did for -1 and -2.
 *
 * <h2>Produce v0 to v2</h2>
 * Advertised (librdkafka enables compression only when Produce starts at 0) but carrying message
 * formats 0 and 1, which are not stored. Every partition is answered UNSUPPORTED_FOR_MESSAGE_FORMAT.
 * <pre>
 *  request:  acks int16 | timeout int32 | [topic string16 | [partition int32 | records bytes32]]
 *  response: [topic string16 | [partition int32 | error_code int16 | base_offset int64 | (v2) log_append_time int64]]
 *            | (v1+) throttle_time_ms int32
 * </pre>
 * A request that does not match the layout throws {@link IllegalArgumentException}.
 */
public final class LegacyRequests {
    /** The answer to one partition of a ListOffsets v0 request. */
    public record Offset(Errors error, long offset) {
    }

    /** Looks up the offset of a partition for a timestamp (-1 latest, -2 earliest). */
    @FunctionalInterface
    public interface OffsetLookup {
        Offset lookup(String topic, int partition, long timestamp);
    }

    private LegacyRequests() {
    }

    /** The response frame (size prefix included) to a ListOffsets v0 body. */
    public static ByteBuffer listOffsetsV0(int correlationId, ByteBuffer body, OffsetLookup offsets) {
        try {
            body.getInt(); // replica_id
            int topics = count(body, 6);
            List<byte[]> names = new ArrayList<>(topics);
            List<List<long[]>> answers = new ArrayList<>(topics);
            int size = Integer.BYTES + Integer.BYTES + Integer.BYTES;
            for (int t = 0; t < topics; t++) {
                byte[] name = string(body);
                int partitions = count(body, 16);
                List<long[]> answer = new ArrayList<>(partitions);
                for (int p = 0; p < partitions; p++) {
                    int partition = body.getInt();
                    long timestamp = body.getLong();
                    body.getInt(); // max_num_offsets
                    Offset offset = offsets.lookup(new String(name, StandardCharsets.UTF_8), partition, timestamp);
                    answer.add(new long[] {partition, offset.error().code(), offset.offset()});
                    size += 4 + 2 + 4 + (offset.offset() >= 0 ? 8 : 0);
                }
                names.add(name);
                answers.add(answer);
                size += 2 + name.length + 4;
            }
            ByteBuffer out = ByteBuffer.allocate(size);
            out.putInt(size - Integer.BYTES).putInt(correlationId).putInt(topics);
            for (int t = 0; t < topics; t++) {
                out.putShort((short) names.get(t).length).put(names.get(t)).putInt(answers.get(t).size());
                for (long[] answer : answers.get(t)) {
                    out.putInt((int) answer[0]).putShort((short) answer[1]);
                    if (answer[2] >= 0) {
                        out.putInt(1).putLong(answer[2]);
                    } else {
                        out.putInt(0);
                    }
                }
            }
            return out.flip();
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("ListOffsets v0 request ends early", e);
        }
    }

    /**
     * The response frame to a Produce v0-v2 body; null for {@code acks = 0}, which is answered with
     * nothing.
     */
    public static ByteBuffer produceV0(int correlationId, short version, ByteBuffer body) {
        try {
            short acks = body.getShort();
            body.getInt(); // timeout
            int topics = count(body, 6);
            List<byte[]> names = new ArrayList<>(topics);
            List<int[]> partitions = new ArrayList<>(topics);
            int partitionSize = 4 + 2 + 8 + (version >= 2 ? 8 : 0);
            int size = Integer.BYTES + Integer.BYTES + Integer.BYTES + (version >= 1 ? Integer.BYTES : 0);
            for (int t = 0; t < topics; t++) {
                byte[] name = string(body);
                int[] indexes = new int[count(body, 8)];
                for (int p = 0; p < indexes.length; p++) {
                    indexes[p] = body.getInt();
                    int records = body.getInt();
                    if (records > 0) {
                        body.position(body.position() + records);
                    }
                }
                names.add(name);
                partitions.add(indexes);
                size += 2 + name.length + 4 + indexes.length * partitionSize;
            }
            if (acks == 0) {
                return null;
            }
            ByteBuffer out = ByteBuffer.allocate(size);
            out.putInt(size - Integer.BYTES).putInt(correlationId).putInt(topics);
            for (int t = 0; t < topics; t++) {
                out.putShort((short) names.get(t).length).put(names.get(t)).putInt(partitions.get(t).length);
                for (int partition : partitions.get(t)) {
                    out.putInt(partition).putShort(Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT.code()).putLong(-1);
                    if (version >= 2) {
                        out.putLong(-1);
                    }
                }
            }
            if (version >= 1) {
                out.putInt(0);
            }
            return out.flip();
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new IllegalArgumentException("Produce v" + version + " request does not parse: " + e.getMessage(), e);
        }
    }

    /** An array count that the remaining bytes can hold at {@code minEntry} bytes per entry. */
    private static int count(ByteBuffer body, int minEntry) {
        int count = body.getInt();
        if (count < 0 || (long) count * minEntry > body.remaining()) {
            throw new IllegalArgumentException("array of " + count + " entries with " + body.remaining() + " bytes left");
        }
        return count;
    }

    private static byte[] string(ByteBuffer body) {
        short length = body.getShort();
        if (length < 0 || length > body.remaining()) {
            throw new IllegalArgumentException("string of " + length + " bytes with " + body.remaining() + " bytes left");
        }
        byte[] bytes = new byte[length];
        body.get(bytes);
        return bytes;
    }
}
