package io.sluice.ringbus;

import java.nio.file.Path;

/**
 * A batch spilled to disk by fullOp FILE: its file and the key range it holds (from the header).
 *
 * @param path        the spill file
 * @param count       rows
 * @param firstOffset offset of the first row
 * @param lastOffset  offset of the last row
 * @param minTs       ts of the first row
 * @param maxTs       ts of the last row
 * @param fileBytes   length of the file
 */
public record SpilledBatch(Path path, int count, long firstOffset, long lastOffset, long minTs, long maxTs, long fileBytes) {
}
