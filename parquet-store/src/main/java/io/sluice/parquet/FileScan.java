package io.sluice.parquet;

import io.sluice.parquet.internal.ColumnCursor;
import io.sluice.parquet.internal.FileInput;
import io.sluice.parquet.internal.NoOpConverter;
import io.sluice.parquet.internal.SchemaMapping;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.Schema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Streams the rows of one file whose ts is in [start, end], in chunks of at most
 * {@value #CHUNK_ROWS} rows or about {@value #CHUNK_BYTES} bytes, reading only the requested
 * columns. Row groups whose ts statistics lie outside the range are never read; rows are in key
 * order, so the scan stops at the first ts past the end. Memory stays bounded by one row group
 * plus one chunk, whatever the file's size.
 *
 * <p>One thread at a time; close it to release the file.
 */
public final class FileScan implements AutoCloseable {

    /** Most rows per chunk. */
    public static final int CHUNK_ROWS = 4096;
    /** A chunk ends once its values reach this many bytes. */
    public static final int CHUNK_BYTES = 1 << 20;

    private final StoredFile file;
    private final ParquetFileReader reader;
    private final MessageType requested;
    private final Schema schema;
    private final String createdBy;
    private final long start;
    private final long end;
    private final List<Integer> rowGroups = new ArrayList<>();
    private int nextRowGroup;
    private ColumnCursor[] cursors;
    private int tsColumn;
    private long rowsLeft;
    private boolean done;

    private FileScan(StoredFile file, ParquetFileReader reader, List<String> columns, long start, long end) throws IOException {
        this.file = file;
        this.reader = reader;
        this.start = start;
        this.end = end;
        MessageType fileType = reader.getFooter().getFileMetaData().getSchema();
        Schema fileSchema = SchemaMapping.fromParquet(fileType, file.location());
        if (!fileSchema.contains(Column.TS.name())) {
            throw new IOException(file.location() + " has no ts column");
        }
        Set<String> wanted = new LinkedHashSet<>();
        wanted.add(Column.TS.name());
        wanted.addAll(columns.isEmpty() ? fileSchema.columns().stream().map(Column::name).toList() : columns);
        this.schema = fileSchema.project(wanted);
        this.requested = project(fileType, schema);
        this.createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
        reader.setRequestedSchema(requested);
        selectRowGroups(reader.getRowGroups());
    }

    /** The file's own fields of the projected columns, as the file annotates them (old files have a plain INT64 ts). */
    private static MessageType project(MessageType fileType, Schema projected) {
        List<Type> fields = new ArrayList<>(projected.size());
        for (Column column : projected.columns()) {
            fields.add(fileType.getType(column.name()));
        }
        return new MessageType(fileType.getName(), fields);
    }

    static FileScan open(FileSystem fs, StoredFile file, Configuration configuration, long start, long end, List<String> columns)
            throws IOException {
        Path path = new Path(file.location());
        ParquetFileReader reader = new ParquetFileReader(new FileInput(fs, path, file.bytes()),
                HadoopReadOptions.builder(configuration, path).build());
        try {
            return new FileScan(file, reader, columns, start, end);
        } catch (IOException | RuntimeException e) {
            reader.close();
            throw e;
        }
    }

    private void selectRowGroups(List<BlockMetaData> blocks) {
        for (int i = 0; i < blocks.size(); i++) {
            Statistics<?> stats = tsStatistics(blocks.get(i));
            if (stats != null && stats.hasNonNullValue()) {
                long min = (Long) stats.genericGetMin();
                long max = (Long) stats.genericGetMax();
                if (min > end) {
                    break;
                }
                if (max < start) {
                    continue;
                }
            }
            rowGroups.add(i);
        }
    }

    private static Statistics<?> tsStatistics(BlockMetaData block) {
        for (ColumnChunkMetaData column : block.getColumns()) {
            if (column.getPath().size() == 1 && column.getPath().toArray()[0].equals(Column.TS.name())) {
                return column.getStatistics();
            }
        }
        return null;
    }

    /** The columns chunks hold: ts, then the requested ones the file has. */
    public Schema schema() {
        return schema;
    }

    /** How many row groups the statistics left to read. */
    public int rowGroupsToRead() {
        return rowGroups.size();
    }

    /** The next chunk of matching rows, or null at the end. */
    public ColumnBatch next() throws IOException {
        while (!done) {
            if (cursors == null && !openNextRowGroup()) {
                done = true;
                return null;
            }
            ColumnBatch chunk = readChunk();
            if (chunk != null) {
                return chunk;
            }
            cursors = null;
        }
        return null;
    }

    private boolean openNextRowGroup() throws IOException {
        if (nextRowGroup == rowGroups.size()) {
            return false;
        }
        PageReadStore pages = reader.readRowGroup(rowGroups.get(nextRowGroup++));
        ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages, new NoOpConverter(), requested, createdBy);
        List<ColumnDescriptor> descriptors = requested.getColumns();
        cursors = new ColumnCursor[descriptors.size()];
        for (int i = 0; i < descriptors.size(); i++) {
            cursors[i] = new ColumnCursor(store.getColumnReader(descriptors.get(i)), schema.column(i).type());
        }
        tsColumn = schema.indexOf(Column.TS.name());
        rowsLeft = pages.getRowCount();
        while (rowsLeft > 0 && cursors[tsColumn].peekLong() < start) {
            for (ColumnCursor cursor : cursors) {
                cursor.skipRow();
            }
            rowsLeft--;
        }
        return true;
    }

    private ColumnBatch readChunk() {
        int capacity = (int) Math.min(CHUNK_ROWS, rowsLeft);
        if (capacity == 0) {
            return null;
        }
        for (ColumnCursor cursor : cursors) {
            cursor.startChunk(capacity);
        }
        int rows = 0;
        long bytes = 0;
        while (rows < capacity && bytes < CHUNK_BYTES) {
            if (cursors[tsColumn].peekLong() > end) {
                done = true;
                break;
            }
            for (ColumnCursor cursor : cursors) {
                bytes += cursor.readInto(rows);
            }
            rows++;
            rowsLeft--;
        }
        if (rows == 0) {
            return null;
        }
        List<ColumnVector> vectors = new ArrayList<>(cursors.length);
        for (ColumnCursor cursor : cursors) {
            vectors.add(cursor.vector());
        }
        return ColumnBatch.of(schema, vectors, rows);
    }

    public StoredFile file() {
        return file;
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
