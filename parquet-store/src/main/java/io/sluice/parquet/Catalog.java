package io.sluice.parquet;

import java.util.ArrayList;
import java.util.List;

/**
 * The published files of one exchange in seq order, and the next seq. Retention lives here:
 * adding a file beyond {@code file_count} retires the oldest, and {@link #expire} retires files by
 * age, never the newest (its footer carries offsets and the clock across restarts). Written by the writer thread,
 * read by any thread; methods are synchronized.
 */
final class Catalog {

    private final int fileCount;
    private final List<StoredFile> files;
    private long nextSeq;

    Catalog(int fileCount, List<StoredFile> recovered, long nextSeq) {
        this.fileCount = fileCount;
        this.files = new ArrayList<>(recovered);
        this.nextSeq = nextSeq;
    }

    synchronized long nextSeq() {
        return nextSeq;
    }

    /** Adds a newly published file; returns the files retention retires, oldest first. */
    synchronized List<StoredFile> add(StoredFile file) {
        files.add(file);
        nextSeq = Math.max(nextSeq, file.seq() + 1);
        List<StoredFile> retired = new ArrayList<>();
        while (files.size() > fileCount) {
            retired.add(files.remove(0));
        }
        return retired;
    }

    /** Retires the files whose newest row is older than {@code cutoffTs}, oldest first, keeping the newest file. */
    synchronized List<StoredFile> expire(long cutoffTs) {
        List<StoredFile> retired = new ArrayList<>();
        while (files.size() > 1 && files.get(0).maxTs() < cutoffTs) {
            retired.add(files.remove(0));
        }
        return retired;
    }

    synchronized List<StoredFile> files() {
        return List.copyOf(files);
    }

    synchronized long totalBytes() {
        long total = 0;
        for (StoredFile file : files) {
            total += file.bytes();
        }
        return total;
    }
}
