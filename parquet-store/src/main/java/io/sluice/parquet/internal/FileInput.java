package io.sluice.parquet.internal;

import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.util.HadoopStreams;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/** A Parquet input file on a given Hadoop FileSystem instance (the store's, not the global cache's). */
public final class FileInput implements InputFile {

    private final FileSystem fs;
    private final Path path;
    private final long length;

    public FileInput(FileSystem fs, Path path, long length) {
        this.fs = fs;
        this.path = path;
        this.length = length;
    }

    /** An input file whose length is asked of the file system. */
    public static FileInput of(FileSystem fs, Path path) throws IOException {
        return new FileInput(fs, path, fs.getFileStatus(path).getLen());
    }

    @Override
    public long getLength() {
        return length;
    }

    @Override
    public SeekableInputStream newStream() throws IOException {
        return HadoopStreams.wrap(fs.open(path));
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
