package io.sluice.ringbus;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;

/**
 * The spill file: one sealed batch that fullOp FILE moved to local disk because the writer's
 * queue was full. The writer turns it into Parquet later, then deletes it; at start-up, spill
 * files not yet in Parquet are written first.
 *
 * <p>Name: the batch's first offset in 20 digits, {@code 00000000000000004096.spill}. The file is
 * written as {@code .00000000000000004096.spill.tmp}, fsynced, renamed, and the directory fsynced,
 * so a file with the final name is complete; a leftover {@code .tmp} is a crash mid-write and is
 * deleted (its batch was still in memory and is lost with the process).
 *
 * <p>Layout, all integers big-endian:
 *
 * <pre>
 *  offset  width  field
 *   0       4     magic 0x534C5350 ("SLSP")
 *   4       2     version, 1
 *   6       2     flags, 0
 *   8       4     record count n, at least 1
 *  12       8     first offset
 *  20       8     last offset
 *  28       8     min ts (ts of the first record)
 *  36       8     max ts (ts of the last record)
 *  44       8     body length: bytes of the n records that follow
 *  52       ...   n records, each:
 *                   ts i64 | offset i64 | topic length u16 | topic UTF-8 | data length u32 | data
 *  52+body  4     CRC-32C of bytes [0, 52+body)
 * </pre>
 *
 * Example: one record (ts 1700000000000, offset 7, topic "a/b", data 0x01 0x02) gives a body of
 * 8+8+2+3+4+2 = 27 bytes and a file of 52+27+4 = 83 bytes. A reader checks the magic, version,
 * length, CRC, then each record's bounds, that offsets strictly increase and ts never decreases,
 * and that both agree with the header; any failure is a {@link CorruptSpillFileException} naming
 * the byte position.
 */
public final class SpillFile {

    static final int MAGIC = 0x534C5350;
    static final short VERSION = 1;
    static final int COUNT_OFFSET = 8;
    static final int FIRST_OFFSET_OFFSET = COUNT_OFFSET + 4;
    static final int LAST_OFFSET_OFFSET = FIRST_OFFSET_OFFSET + 8;
    static final int MIN_TS_OFFSET = LAST_OFFSET_OFFSET + 8;
    static final int MAX_TS_OFFSET = MIN_TS_OFFSET + 8;
    static final int BODY_LENGTH_OFFSET = MAX_TS_OFFSET + 8;
    /** Length of the header. */
    public static final int HEADER_LENGTH = BODY_LENGTH_OFFSET + 8;
    /** Bytes of a record with an empty topic and no data: ts, offset, topic length, data length. */
    static final int MIN_RECORD_LENGTH = 8 + 8 + 2 + 4;
    /** Length of the CRC trailer. */
    public static final int TRAILER_LENGTH = 4;
    /** Suffix of complete spill files. */
    public static final String SUFFIX = ".spill";
    /** Suffix of files being written. */
    public static final String TEMP_SUFFIX = ".spill.tmp";

    private SpillFile() {
    }

    /** The file name of a batch starting at {@code firstOffset}. */
    public static String fileName(long firstOffset) {
        return String.format("%020d", firstOffset) + SUFFIX;
    }

    /**
     * Writes a non-empty batch into {@code dir} durably.
     *
     * @return the spilled batch, once its file has its final name
     */
    public static SpilledBatch write(Path dir, Batch.Contents batch) throws IOException {
        if (batch.isEmpty()) {
            throw new IllegalArgumentException("an empty batch is never spilled");
        }
        String name = fileName(batch.firstOffset());
        Path temp = dir.resolve("." + name + ".tmp");
        Path target = dir.resolve(name);
        byte[][] topics = new byte[batch.size()][];
        long body = 0;
        for (int i = 0; i < batch.size(); i++) {
            topics[i] = topicBytes(batch, i);
            body += 8 + 8 + 2 + topics[i].length + 4 + batch.payloads()[i].length;
        }
        CRC32C crc = new CRC32C();
        try (FileOutputStream file = new FileOutputStream(temp.toFile())) {
            OutputStream buffered = new BufferedOutputStream(file, 1 << 16);
            DataOutputStream out = new DataOutputStream(new CheckedOutputStream(buffered, crc));
            writeHeader(out, batch, body);
            for (int i = 0; i < batch.size(); i++) {
                out.writeLong(batch.ts()[i]);
                out.writeLong(batch.offsets()[i]);
                out.writeShort(topics[i].length);
                out.write(topics[i]);
                out.writeInt(batch.payloads()[i].length);
                out.write(batch.payloads()[i]);
            }
            out.flush();
            buffered.write(ByteBuffer.allocate(TRAILER_LENGTH).putInt((int) crc.getValue()).array());
            buffered.flush();
            file.getFD().sync();
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        syncDirectory(dir);
        return new SpilledBatch(target, batch.size(), batch.firstOffset(), batch.lastOffset(), batch.minTs(), batch.maxTs(),
                HEADER_LENGTH + body + TRAILER_LENGTH);
    }

    private static void writeHeader(DataOutputStream out, Batch.Contents batch, long body) throws IOException {
        out.writeInt(MAGIC);
        out.writeShort(VERSION);
        out.writeShort(0);
        out.writeInt(batch.size());
        out.writeLong(batch.firstOffset());
        out.writeLong(batch.lastOffset());
        out.writeLong(batch.minTs());
        out.writeLong(batch.maxTs());
        out.writeLong(body);
    }

    private static byte[] topicBytes(Batch.Contents batch, int row) {
        byte[] bytes = batch.topics()[row].getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 0xFFFF) {
            throw new IllegalArgumentException("topic of offset " + batch.offsets()[row] + " has " + bytes.length
                    + " UTF-8 bytes, more than a u16 length holds");
        }
        return bytes;
    }

    /** Reads and checks the header of a spill file (not the body or CRC). */
    public static SpilledBatch readHeader(Path path) throws IOException {
        long length = Files.size(path);
        if (length < HEADER_LENGTH + TRAILER_LENGTH) {
            throw new CorruptSpillFileException(path, 0, "file of " + length + " bytes is shorter than header and trailer");
        }
        ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH);
        try (var channel = Files.newByteChannel(path)) {
            while (header.hasRemaining() && channel.read(header) >= 0) {
                // read the whole header
            }
        }
        header.flip();
        return checkHeader(path, header, length);
    }

    private static SpilledBatch checkHeader(Path path, ByteBuffer header, long length) throws CorruptSpillFileException {
        if (header.getInt(0) != MAGIC) {
            throw new CorruptSpillFileException(path, 0, String.format("magic 0x%08x, expected 0x%08x", header.getInt(0), MAGIC));
        }
        if (header.getShort(4) != VERSION) {
            throw new CorruptSpillFileException(path, 4, "unknown version " + header.getShort(4));
        }
        int count = header.getInt(COUNT_OFFSET);
        long body = header.getLong(BODY_LENGTH_OFFSET);
        if (body < 0 || HEADER_LENGTH + body + TRAILER_LENGTH != length) {
            throw new CorruptSpillFileException(path, BODY_LENGTH_OFFSET, "body length " + body + " does not match file length " + length);
        }
        // Checked against the body so that a damaged count cannot make the reader allocate for it.
        if (count < 1 || count > body / MIN_RECORD_LENGTH) {
            throw new CorruptSpillFileException(path, COUNT_OFFSET, "record count " + count + " does not fit a body of "
                    + body + " bytes (a record takes at least " + MIN_RECORD_LENGTH + ")");
        }
        return new SpilledBatch(path, count, header.getLong(FIRST_OFFSET_OFFSET), header.getLong(LAST_OFFSET_OFFSET),
                header.getLong(MIN_TS_OFFSET), header.getLong(MAX_TS_OFFSET), length);
    }

    /** Reads a whole spill file, checking everything the class comment lists. */
    public static Batch.Contents read(Path path) throws IOException {
        byte[] bytes = Files.readAllBytes(path);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (bytes.length < HEADER_LENGTH + TRAILER_LENGTH) {
            throw new CorruptSpillFileException(path, 0, "file of " + bytes.length + " bytes is shorter than header and trailer");
        }
        SpilledBatch header = checkHeader(path, buffer, bytes.length);
        int crcAt = bytes.length - TRAILER_LENGTH;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, crcAt);
        if ((int) crc.getValue() != buffer.getInt(crcAt)) {
            throw new CorruptSpillFileException(path, crcAt, String.format("CRC-32C 0x%08x, computed 0x%08x",
                    buffer.getInt(crcAt), (int) crc.getValue()));
        }
        return records(path, buffer.position(HEADER_LENGTH).limit(crcAt), header);
    }

    private static Batch.Contents records(Path path, ByteBuffer buffer, SpilledBatch header) throws CorruptSpillFileException {
        int n = header.count();
        long[] ts = new long[n];
        long[] offsets = new long[n];
        String[] topics = new String[n];
        byte[][] payloads = new byte[n][];
        for (int i = 0; i < n; i++) {
            int at = buffer.position();
            try {
                ts[i] = buffer.getLong();
                offsets[i] = buffer.getLong();
                byte[] topic = new byte[Short.toUnsignedInt(buffer.getShort())];
                buffer.get(topic);
                topics[i] = new String(topic, StandardCharsets.UTF_8);
                int length = buffer.getInt();
                if (length < 0 || length > buffer.remaining()) {
                    throw new CorruptSpillFileException(path, at, "record " + i + " claims " + length + " data bytes");
                }
                payloads[i] = new byte[length];
                buffer.get(payloads[i]);
            } catch (BufferUnderflowException e) {
                throw new CorruptSpillFileException(path, at, "record " + i + " of " + n + " runs past the body");
            }
            if (i > 0 && (offsets[i] <= offsets[i - 1] || ts[i] < ts[i - 1])) {
                throw new CorruptSpillFileException(path, at, "record " + i + " (offset " + offsets[i] + ", ts " + ts[i]
                        + ") is not after offset " + offsets[i - 1] + ", ts " + ts[i - 1]);
            }
        }
        if (buffer.hasRemaining()) {
            throw new CorruptSpillFileException(path, buffer.position(), buffer.remaining() + " bytes after the last record");
        }
        if (offsets[0] != header.firstOffset() || offsets[n - 1] != header.lastOffset()
                || ts[0] != header.minTs() || ts[n - 1] != header.maxTs()) {
            throw new CorruptSpillFileException(path, COUNT_OFFSET, "records span offsets " + offsets[0] + ".." + offsets[n - 1]
                    + ", ts " + ts[0] + ".." + ts[n - 1] + ", not what the header says: " + header);
        }
        return new Batch.Contents(ts, offsets, topics, payloads, n);
    }

    /** Fsyncs a directory so a rename or delete in it survives a power cut. */
    static void syncDirectory(Path dir) throws IOException {
        try (var channel = java.nio.channels.FileChannel.open(dir, java.nio.file.StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
