package io.sluice.parquet;

import io.sluice.settings.InvalidSettingException;
import java.time.Duration;
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
 *                       publishes a file once it reached it, so a file exceeds it by at most one
 *                       batch and the exchange keeps at most about {@code fileCount × fileSize} bytes
 * @param fileRollInterval a file is published once its first row was written this long ago, at
 *                       least {@value #MIN_ROLL_MS} ms
 * @param retention      files whose newest row is older than this are deleted; {@link Duration#ZERO}
 *                       keeps files of any age
 * @param queueBatches   batches that may wait for the writer (queued or being written), at least 1;
 *                       a full batch that finds no room meets {@code fullOp}
 * @param rowGroupBytes  the buffered size at which the writer closes a row group
 * @param hadoop         extra Hadoop configuration properties (e.g. {@code dfs.replication})
 */
public record ParquetSettings(Compression compress, String dir, String fileNamePrefix, int fileCount, long fileSize,
                              Duration fileRollInterval, Duration retention, int queueBatches, long rowGroupBytes,
                              Map<String, String> hadoop) {

    /** Smallest {@code file_size}. */
    public static final long MIN_FILE_SIZE = 4096;
    /** Shortest {@code file_roll_interval}, in milliseconds. */
    public static final long MIN_ROLL_MS = 100;
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
        if (fileRollInterval == null || fileRollInterval.toMillis() < MIN_ROLL_MS) {
            throw new InvalidSettingException("parquet.file_roll_interval", "must be at least " + MIN_ROLL_MS + " ms, was " + fileRollInterval);
        }
        if (retention == null || retention.isNegative()) {
            throw new InvalidSettingException("parquet.retention", "must be an age such as 7d, or 0 for no age limit, was " + retention);
        }
        if (queueBatches < 1) {
            throw new InvalidSettingException("parquet.queue_batches", "must be at least 1, was " + queueBatches);
        }
        if (rowGroupBytes < MIN_ROW_GROUP_BYTES) {
            throw new InvalidSettingException("parquet.row_group_bytes", "must be at least " + MIN_ROW_GROUP_BYTES + ", was " + rowGroupBytes);
        }
        hadoop = Map.copyOf(Objects.requireNonNull(hadoop, "hadoop"));
    }

    /** Default {@code file_count}: 8⅓ days of files published every {@code file_roll_interval} (10 min). */
    public static final int DEFAULT_FILE_COUNT = 1200;
    /** Default {@code file_size}: 16 MiB, so an exchange keeps at most about 18.75 GiB by default. */
    public static final long DEFAULT_FILE_SIZE = 16L << 20;
    /** Default {@code file_roll_interval}. */
    public static final Duration DEFAULT_ROLL_INTERVAL = Duration.ofMinutes(10);
    /** Default {@code retention}. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

    /**
     * Defaults in {@code dir}: zstd, prefix "sluice", at most 1200 files of 16 MiB, each published
     * after 10 minutes, kept 7 days; 8 queued batches, 16 MiB row groups.
     */
    public static ParquetSettings defaults(String dir) {
        return new ParquetSettings(Compression.ZSTD, dir, "sluice", DEFAULT_FILE_COUNT, DEFAULT_FILE_SIZE, DEFAULT_ROLL_INTERVAL,
                DEFAULT_RETENTION, 8, 16L << 20, Map.of());
    }

    public ParquetSettings withCompress(Compression value) {
        return new ParquetSettings(value, dir, fileNamePrefix, fileCount, fileSize, fileRollInterval, retention, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withDir(String value) {
        return new ParquetSettings(compress, value, fileNamePrefix, fileCount, fileSize, fileRollInterval, retention, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withFileNamePrefix(String value) {
        return new ParquetSettings(compress, dir, value, fileCount, fileSize, fileRollInterval, retention, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withFileCount(int value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, value, fileSize, fileRollInterval, retention, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withFileSize(long value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, fileCount, value, fileRollInterval, retention, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withFileRollInterval(Duration value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, fileCount, fileSize, value, retention, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withRetention(Duration value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, fileCount, fileSize, fileRollInterval, value, queueBatches, rowGroupBytes, hadoop);
    }

    public ParquetSettings withQueueBatches(int value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, fileCount, fileSize, fileRollInterval, retention, value, rowGroupBytes, hadoop);
    }

    public ParquetSettings withRowGroupBytes(long value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, fileCount, fileSize, fileRollInterval, retention, queueBatches, value, hadoop);
    }

    public ParquetSettings withHadoop(Map<String, String> value) {
        return new ParquetSettings(compress, dir, fileNamePrefix, fileCount, fileSize, fileRollInterval, retention, queueBatches, rowGroupBytes, value);
    }
}
