package io.sluice.exchange.internal;

import io.sluice.parquet.StoredFile;

/** A published Parquet file in an exchange's view, deleted by retention once no query reads it. */
public final class FileEntry extends Pinned {

    private final StoredFile file;
    private final Custody custody;

    FileEntry(StoredFile file, Custody custody) {
        this.file = file;
        this.custody = custody;
    }

    public StoredFile file() {
        return file;
    }

    @Override
    void onRelease() {
        custody.deleteFile(file);
    }
}
