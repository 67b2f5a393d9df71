package io.sluice.parquet;

import io.sluice.settings.InvalidSettingException;
import java.util.Map;
import java.util.Objects;

/**
 * Where and how one exchange's Parquet files are written. Invalid values throw
 * {@link InvalidSettingException} with the key path relative to the block holding the
 * {@code parquet} block ({@code parquet.file_count}).
 *
 * @param compress       page compression (default zstd)
 * @param dir            the directory: a local path, or a Hadoop FileSystem URI such as
 *                       {@code file:///data/capture} or {@code hdfs://namenode:8020/capture}
 * @param fileNamePrefix the start of every file name, letters, digits, {@code . _ -}; may be empty
 * @param fileCount      the most files the exchange keeps; the oldest are deleted beyond it
 * @param fileSize       the size of one file, in bytes, at least {@value #MIN_FILE_SIZE}: the writer
 *                       adds no further batch to a file that reached it, so a file exceeds it by
 *                       at most one batch and the exchange keeps at most about
 *                       {@code fileCount × fileSize} bytes
 * @param queueBatches   batches that may wait for the writer (queued or being written), at least 1;
 *                       a full batch that finds no room meets {@code fullOp}
 * @param rowGroupBytes  the buffered size at which the writer closes a row group
 * @param hadoop         extra Hadoop configuration properties (e.g. {@code dfs.replication})
 */
public record ParquetSettings(Compression compress, String dir, String fileNamePrefix, int fileCount, long fileSize,
                              int queueBatches, long rowGroupBytes, Map<String, String> hadoop) {

    /** Smallest {@code file_size}. */
    public static final long MIN_FILE_SIZE = 4096;
    /** Smallest row group size. */
    public static final long MIN_ROW_GROUP_BYTES = 64 * 1024;

    public ParquetSettings {
        if (compress == null) {
            throw new InvalidSettingException("parquet.compress", "missing");
        }
        if (dir == null || dir.isBlank()) {
            throw new InvalidSettingException("parquet.dir", "missing");
        }
        Objects.requireNonNull(fileNamePrefix, "fileNamePrefix");
        FileName.checkPart("parquet.file_name_prefix", fileNamePrefix, true);
        if (fileCount < 1) {
            throw new InvalidSettingException("parquet.file_count", "must be at least 1, was " + fileCount);
        }
        if (fileSize < MIN_FILE_SIZE) {
            throw new InvalidSettingException("parquet.file_size", "must be at least " + MIN_FILE_SIZE + " bytes (it is the size of one file), was " + fileSize);
        }
        if (queueBatches < 1) {
            throw new InvalidSettingException("parquet.queue_batches", "must be at least 1, was " + queueBatches);
        }
        if (rowGroupBytes < MIN_ROW_GROUP_BYTES) {
            throw new InvalidSettingException("parquet.row_group_bytes", "must be at least " + MIN_ROW_GROUP_BYTES + ", was " + rowGroupBytes);
        }
        hadoop = Map.copyOf(Objects.requireNonNull(hadoop, "hadoop"));
    }

    /** Defaults in {@code dir}: zstd, prefix "sluice", 100 files of 64 MiB, 8 queued batches, 16 MiB row groups. */
    public static ParquetSettings defaults(String dir) {
        return new ParquetSettings(Compression.ZSTD, dir, "sluice", 100, 64L << 20, 8, 16L << 20, Map.of());
    }

    public ParquetSettings withCompress(Compression value) {
        return new ParquetSettings(value, dir, fileNamePrefix, fileCount, fileSize, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withDir(String value) {
        return new ParquetSettings(compress, value, fileNamePrefix, fileCount, fileSize, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withFileNamePrefix(String value) {
        return new ParquetSettings(compress, dir, value, fileCount, fileSize, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withFileCount(int value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, value, fileSize, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withFileSize(long value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, fileCount, value, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withQueueBatches(int value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, fileCount, fileSize, value, rowGroupBytes, hadoop);
    }

    public ParquetSettings withRowGroupBytes(long value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, fileCount, fileSize, queueBatches, value, hadoop);
    }

    public ParquetSettings withHadoop(Map<String, String> value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, fileCount, fileSize, queueBatches, rowGroupBytes, value);
    }
}
