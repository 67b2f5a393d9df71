package io.sluice.parquet.internal;

import io.sluice.stream.Column;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.StringVector;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.io.api.Binary;

/**
 * UTF-8 text (topics), dictionary-encoded while that pays, as parquet-java's v1 writer does: a
 * data page holds one byte of bit width then the RLE/bit-packed hybrid of dictionary ids
 * (PLAIN_DICTIONARY), the width fitting the largest id so far; the chunk's dictionary page, PLAIN
 * entries, is written before its data pages. The chunk falls back to PLAIN pages (a 4-byte
 * length, then the bytes) for its remaining rows when the dictionary outgrows the dictionary page
 * size, or at its first page when ids plus dictionary would not be smaller than PLAIN.
 *
 * <p>Why it is fast: text is looked up by {@link String} (the exchange passes one instance per
 * topic, so a repeat of the previous row's topic is an identity check) where parquet hashes the
 * UTF-8 bytes on every row; and a page's min and max come from its distinct entries, compared once
 * each at the page's end, not two comparisons per row.
 */
final class TextColumnEncoder extends ColumnEncoder {

    private static final int FIRST_CAPACITY = 1024;

    // The chunk's dictionary: ids in order of first appearance.
    private final int maxDictionaryBytes;
    private final Map<String, Integer> ids = new HashMap<>();
    private Binary[] entries = new Binary[FIRST_CAPACITY];
    private int[] lastPageOf = new int[FIRST_CAPACITY];
    private int entryCount;
    private long dictionaryBytes;
    private String lastText;
    private int lastId;
    private byte[] lastBytes;

    // The open page: its ids in row order, and each distinct id once (for its statistics).
    private final int[] pageIds;
    private int pageIdCount;
    private int[] pageDistinct = new int[FIRST_CAPACITY];
    private int pageDistinctCount;
    private int pageNumber = 1;
    private long unencoded;
    private Encoding encoding = Encoding.PLAIN;
    private Statistics<?> statistics;
    private RunLengthBitPackingHybridEncoder idEncoder;

    // The chunk's mode: PLAIN for good, or falling back once the open page closes.
    private boolean plain;
    private boolean fallBack;
    private boolean firstPage = true;
    private boolean dictionaryUsed;

    TextColumnEncoder(Column column, ColumnDescriptor descriptor, ParquetProperties properties, BytesInputCompressor compressor,
                      PageBufferPool buffers) {
        super(column, descriptor, properties, compressor, buffers);
        this.maxDictionaryBytes = properties.getDictionaryPageSizeThreshold();
        this.pageIds = new int[properties.getPageRowCountLimit()];
        this.statistics = Statistics.createStats(type);
    }

    @Override
    int encode(ColumnVector vector, int from, int to) {
        StringVector column = (StringVector) vector;
        return plain ? encodePlain(column, from, to) : encodeIds(column, from, to);
    }

    private int encodeIds(StringVector column, int from, int to) {
        for (int row = from; row < to; row++) {
            String text = column.get(row);
            if (text != null) {
                addToPage(text == lastText ? lastId : idOf(text));
                if (fallBack) {
                    return row + 1;
                }
            }
        }
        return to;
    }

    private int idOf(String text) {
        Integer known = ids.get(text);
        int id = known != null ? known : addEntry(text);
        lastText = text;
        lastId = id;
        return id;
    }

    private int addEntry(String text) {
        if (entryCount == entries.length) {
            entries = Arrays.copyOf(entries, entryCount * 2);
            lastPageOf = Arrays.copyOf(lastPageOf, entryCount * 2);
        }
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        int id = entryCount++;
        entries[id] = Binary.fromConstantByteArray(utf8);
        ids.put(text, id);
        dictionaryBytes += Integer.BYTES + utf8.length;
        if (dictionaryBytes > maxDictionaryBytes) {
            fallBack = true;
        }
        return id;
    }

    private void addToPage(int id) {
        pageIds[pageIdCount++] = id; // a page has at most pageRows rows, the array's length
        if (lastPageOf[id] != pageNumber) {
            lastPageOf[id] = pageNumber;
            if (pageDistinctCount == pageDistinct.length) {
                pageDistinct = Arrays.copyOf(pageDistinct, pageDistinctCount * 2);
            }
            pageDistinct[pageDistinctCount++] = id;
        }
        unencoded += entries[id].length();
    }

    private int encodePlain(StringVector column, int from, int to) {
        for (int row = from; row < to; row++) {
            String text = column.get(row);
            if (text != null) {
                byte[] utf8 = utf8(text);
                values.putLengthPrefixed(utf8);
                statistics.updateStats(Binary.fromConstantByteArray(utf8));
                unencoded += utf8.length;
                if (super.pageFull()) {
                    return row + 1;
                }
            }
        }
        return to;
    }

    private byte[] utf8(String text) {
        if (text != lastText) {
            lastText = text;
            lastBytes = text.getBytes(StandardCharsets.UTF_8);
        }
        return lastBytes;
    }

    @Override
    long openBytes() {
        return values.size() + (long) Integer.BYTES * pageIdCount + dictionaryBytes;
    }

    @Override
    boolean pageFull() {
        return fallBack || super.pageFull();
    }

    @Override
    BytesInput pageValues() throws IOException {
        if (plain || pageIdCount == 0) {
            encoding = Encoding.PLAIN;
            return values.view();
        }
        for (int i = 0; i < pageDistinctCount; i++) {
            statistics.updateStats(entries[pageDistinct[i]]);
        }
        BytesInput encodedIds = idBytes();
        if (firstPage && !fallBack && encodedIds.size() + dictionaryBytes >= plainBytes()) {
            return rewritePlain();
        }
        dictionaryUsed = true;
        encoding = Encoding.PLAIN_DICTIONARY;
        return encodedIds;
    }

    private BytesInput idBytes() throws IOException {
        int bitWidth = 32 - Integer.numberOfLeadingZeros(entryCount - 1);
        idEncoder = new RunLengthBitPackingHybridEncoder(bitWidth, FIRST_CAPACITY, pageBytes, HeapByteBufferAllocator.getInstance());
        for (int i = 0; i < pageIdCount; i++) {
            idEncoder.writeInt(pageIds[i]);
        }
        return BytesInput.concat(BytesInput.from(new byte[] {(byte) bitWidth}), idEncoder.toBytes());
    }

    /** What the open page's values would take as PLAIN: a 4-byte length and the bytes of each. */
    private long plainBytes() {
        return unencoded + (long) Integer.BYTES * pageIdCount;
    }

    /** The first page as PLAIN, and the chunk PLAIN from here on: the dictionary did not pay. */
    private BytesInput rewritePlain() {
        for (int i = 0; i < pageIdCount; i++) {
            values.putLengthPrefixed(entries[pageIds[i]].getBytesUnsafe());
        }
        forgetDictionary();
        plain = true;
        encoding = Encoding.PLAIN;
        return values.view();
    }

    @Override
    Encoding pageEncoding() {
        return encoding;
    }

    @Override
    Statistics<?> pageStatistics() {
        return statistics;
    }

    @Override
    long unencodedBytes() {
        return unencoded;
    }

    @Override
    void resetPage() {
        if (idEncoder != null) {
            idEncoder.close();
            idEncoder = null;
        }
        if (fallBack) {
            forgetLookups();
            plain = true;
            fallBack = false;
        }
        pageIdCount = 0;
        pageDistinctCount = 0;
        pageNumber++;
        unencoded = 0;
        firstPage = false;
        statistics = Statistics.createStats(type);
    }

    @Override
    DictionaryPage dictionaryPage(BytesInputCompressor compressor) throws IOException {
        if (!dictionaryUsed) {
            return null;
        }
        PageBuffer plainEntries = buffers.take();
        try {
            for (int id = 0; id < entryCount; id++) {
                plainEntries.putLengthPrefixed(entries[id].getBytesUnsafe());
            }
            BytesInput compressed = BytesInput.copy(compressor.compress(plainEntries.view()));
            return new DictionaryPage(compressed, plainEntries.size(), entryCount, Encoding.PLAIN_DICTIONARY);
        } finally {
            buffers.give(plainEntries);
        }
    }

    @Override
    void resetChunk() {
        forgetDictionary();
        plain = false;
        firstPage = true;
        dictionaryUsed = false;
    }

    private void forgetDictionary() {
        forgetLookups();
        Arrays.fill(entries, 0, entryCount, null);
        entryCount = 0;
        dictionaryBytes = 0;
    }

    /** The text-to-id map and the last-row cache; entries stay for the dictionary page. */
    private void forgetLookups() {
        ids.clear();
        lastText = null;
        lastBytes = null;
    }
}
