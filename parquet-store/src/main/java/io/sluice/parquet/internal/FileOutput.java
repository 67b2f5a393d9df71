package io.sluice.parquet.internal;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet output file that is made durable before it closes, so a file renamed to its final
 * name afterwards never turns out empty after a power cut.
 *
 * <p>A local file is written with plain {@code java.io} and {@code fsync}ed: Hadoop's local file
 * system sets the new file's permissions by running {@code chmod} in a child process when the
 * Hadoop native library is absent (it always is here), one process per Parquet file. Any other
 * Hadoop FileSystem is written through it and {@code hsync}ed.
 */
public final class FileOutput implements OutputFile {

    private static final int LOCAL_BUFFER = 64 * 1024;

    private final FileSystem fs;
    private final Path path;
    private DurableStream stream;

    public FileOutput(FileSystem fs, Path path) {
        this.fs = fs;
        this.path = path;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
        return open(false);
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
        return open(true);
    }

    private PositionOutputStream open(boolean overwrite) throws IOException {
        if (fs instanceof RawLocalFileSystem local) {
            File file = local.pathToFile(path);
            if (!overwrite && file.exists()) {
                throw new FileAlreadyExistsException(file.toString());
            }
            stream = new LocalStream(new FileOutputStream(file));
        } else {
            stream = new HadoopStream(fs.create(path, overwrite));
        }
        return stream;
    }

    /** Makes everything written so far durable, the file staying open. */
    public void sync() throws IOException {
        stream.sync();
    }

    /** Closes the file without making it durable, after a failed write; it is deleted next. */
    public void discard() throws IOException {
        if (stream != null) {
            stream.discard();
        }
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

    /** A stream made durable by close, or closed as is by discard. */
    private abstract static class DurableStream extends PositionOutputStream {
        abstract void sync() throws IOException;

        abstract void discard() throws IOException;
    }

    /** A local file: buffered writes, fsync on close. */
    private static final class LocalStream extends DurableStream {
        private final FileOutputStream file;
        private final OutputStream out;
        private long position;

        LocalStream(FileOutputStream file) {
            this.file = file;
            this.out = new BufferedOutputStream(file, LOCAL_BUFFER);
        }

        @Override
        public long getPos() {
            return position;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            position++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            position += len;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            try (OutputStream closing = out) {
                closing.flush();
                file.getFD().sync();
            }
        }

        @Override
        void sync() throws IOException {
            out.flush();
            file.getChannel().force(false);
        }

        @Override
        void discard() throws IOException {
            file.close();
        }
    }

    /** A file on another Hadoop FileSystem: hsync on close. */
    private static final class HadoopStream extends DurableStream {
        private final FSDataOutputStream out;

        HadoopStream(FSDataOutputStream out) {
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

        @Override
        void sync() throws IOException {
            out.hsync();
        }

        @Override
        void discard() throws IOException {
            out.close();
        }
    }
}
