package io.sluice.parquet.internal;

import io.sluice.parquet.FooterKeys;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.KeyValue;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * The row-group journal kept beside a local file being written with {@code durability = none}:
 * after each row group is durable in the file, its footer metadata is appended here and made
 * durable, so a crash loses at most the row group being written. At start-up
 * {@link #recover} rebuilds the footer of the file's journaled row groups and ends the file with
 * it, which makes it a complete Parquet file to publish.
 *
 * <p>Layout, one entry per row group (or the few a large batch makes), appended:
 * <pre>
 *   length  u32 BE   bytes of the metadata that follows
 *   meta    bytes    a Thrift FileMetaData (compact protocol, as in a Parquet footer) holding the
 *                    schema, the entry's row groups and, as key-value metadata, the footer the file
 *                    would get if it ended here plus {@value #END_KEY} = the file's length after them
 *   crc     u32 BE   CRC-32 of meta
 * </pre>
 * A torn or corrupt entry ends the journal: what follows it is ignored. Used by the writer thread,
 * and at open before it starts.
 */
public final class RowGroupJournal implements Closeable {

    /** Key-value entry: the file's length after the entry's row groups. */
    static final String END_KEY = "sluice.journal_end";
    private static final ParquetMetadataConverter CONVERTER = new ParquetMetadataConverter();

    private final Path path;
    private final FileChannel channel;

    private RowGroupJournal(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    /** Creates (or empties) the journal of a new file. */
    public static RowGroupJournal create(Path path) throws IOException {
        return new RowGroupJournal(path, FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING));
    }

    /**
     * Appends row groups that are durable in the file and makes the entry durable.
     *
     * @param rowGroups the file's schema and the row groups just written
     * @param footer    the footer key-value metadata the file would get if it ended after them
     * @param end       the file's length after them
     */
    public void append(ParquetMetadata rowGroups, Map<String, String> footer, long end) throws IOException {
        FileMetaData meta = CONVERTER.toParquetMetadata(ParquetFileWriter.CURRENT_VERSION, rowGroups);
        List<KeyValue> keys = new ArrayList<>();
        footer.forEach((key, value) -> keys.add(new KeyValue(key).setValue(value)));
        keys.add(new KeyValue(END_KEY).setValue(Long.toString(end)));
        meta.setKey_value_metadata(keys);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
        Util.writeFileMetaData(meta, bytes);
        byte[] body = bytes.toByteArray();
        CRC32 crc = new CRC32();
        crc.update(body);
        ByteBuffer entry = ByteBuffer.allocate(body.length + 8);
        entry.putInt(body.length).put(body).putInt((int) crc.getValue()).flip();
        while (entry.hasRemaining()) {
            channel.write(entry);
        }
        channel.force(false);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    /** Closes and deletes the journal, once its file is published or given up. */
    public void delete() throws IOException {
        close();
        Files.deleteIfExists(path);
    }

    /**
     * Ends a crashed file after its journaled row groups with their footer, so it reads as a
     * complete Parquet file, and makes it durable.
     *
     * @return the footer's key-value metadata ({@link FooterKeys}), or null when the journal holds no
     *         complete entry or points past the file's end (nothing to recover)
     */
    public static Map<String, String> recover(Path file, Path journal) throws IOException {
        List<FileMetaData> entries = read(journal);
        if (entries.isEmpty()) {
            return null;
        }
        FileMetaData last = entries.get(entries.size() - 1);
        Map<String, String> footer = new java.util.LinkedHashMap<>();
        for (KeyValue kv : last.getKey_value_metadata()) {
            footer.put(kv.getKey(), kv.getValue());
        }
        long end = Long.parseLong(footer.remove(END_KEY));
        if (end > Files.size(file)) {
            return null;
        }
        FileMetaData combined = entries.get(0).deepCopy();
        List<RowGroup> groups = new ArrayList<>();
        long rows = 0;
        for (FileMetaData entry : entries) {
            for (RowGroup group : entry.getRow_groups()) {
                group.setOrdinal((short) groups.size());
                groups.add(group);
                rows += group.getNum_rows();
            }
        }
        combined.setRow_groups(groups);
        combined.setNum_rows(rows);
        List<KeyValue> keys = new ArrayList<>();
        footer.forEach((key, value) -> keys.add(new KeyValue(key).setValue(value)));
        combined.setKey_value_metadata(keys);
        writeFooter(file, end, combined);
        return footer;
    }

    private static void writeFooter(Path file, long end, FileMetaData footer) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(4096);
        Util.writeFileMetaData(footer, bytes);
        ByteBuffer tail = ByteBuffer.allocate(bytes.size() + 8).order(ByteOrder.LITTLE_ENDIAN);
        tail.put(bytes.toByteArray()).putInt(bytes.size()).put(ParquetFileWriter.MAGIC).flip();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(end);
            channel.position(end);
            while (tail.hasRemaining()) {
                channel.write(tail);
            }
            channel.force(true);
        }
    }

    /** The complete entries, in order, up to the first torn or corrupt one. */
    private static List<FileMetaData> read(Path journal) throws IOException {
        ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(journal));
        List<FileMetaData> entries = new ArrayList<>();
        while (all.remaining() >= 8) {
            int length = all.getInt();
            if (length < 0 || length > all.remaining() - 4) {
                break;
            }
            byte[] body = new byte[length];
            all.get(body);
            CRC32 crc = new CRC32();
            crc.update(body);
            if (all.getInt() != (int) crc.getValue()) {
                break;
            }
            entries.add(Util.readFileMetaData(new ByteArrayInputStream(body)));
        }
        return entries;
    }
}
