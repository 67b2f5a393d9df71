package io.sluice.parquet.internal;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet output file on any Hadoop FileSystem that is made durable ({@code hsync}) before it
 * closes, so a file renamed to its final name afterwards never turns out empty after a power cut.
 */
public final class FileOutput implements OutputFile {

    private final FileSystem fs;
    private final Path path;

    public FileOutput(FileSystem fs, Path path) {
        this.fs = fs;
        this.path = path;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
        return new SyncingStream(fs.create(path, false));
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
        return new SyncingStream(fs.create(path, true));
    }

    @Override
    public boolean supportsBlockSize() {
        return false;
    }

    @Override
    public long defaultBlockSize() {
        return 0;
    }

    @Override
    public String getPath() {
        return path.toString();
    }

    private static final class SyncingStream extends PositionOutputStream {
        private final FSDataOutputStream out;

        SyncingStream(FSDataOutputStream out) {
            this.out = out;
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            try (FSDataOutputStream closing = out) {
                closing.hsync();
            }
        }
    }
}
