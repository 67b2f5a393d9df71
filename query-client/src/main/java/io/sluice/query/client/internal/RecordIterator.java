package io.sluice.query.client.internal;

import io.sluice.query.client.Record;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;

/** The records of a reply's data frames, read one frame at a time as the iteration reaches it. */
final class RecordIterator implements Iterator<Record> {

    private final Iterator<byte[]> frames;
    private final RawLayout layout;
    private ByteBuffer frame = ByteBuffer.allocate(0);
    private long frameIndex = -1;

    RecordIterator(Iterator<byte[]> frames, RawLayout layout) {
        this.frames = frames;
        this.layout = layout;
    }

    @Override
    public boolean hasNext() {
        while (!frame.hasRemaining()) {
            if (!frames.hasNext()) {
                return false;
            }
            frame = ByteBuffer.wrap(frames.next());
            frameIndex++;
        }
        return true;
    }

    @Override
    public Record next() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more records");
        }
        return layout.read(frame, frameIndex);
    }
}
