package io.sluice.parquet;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/** Writes files laid out as Sluice wrote them before ts was annotated as a timestamp (plain INT64), with parquet-java. */
final class OldFiles {

    private static final MessageType SCHEMA = MessageTypeParser.parseMessageType("message sluice { required int64 ts; "
            + "required int64 offset; required binary topic (STRING); required binary data; }");

    private OldFiles() {
    }

    /** A published file of the RAW rows for offsets [first, first + rows), as {@link TestBatches} makes them. */
    static void write(Path file, long first, int rows) throws IOException {
        long last = first + rows - 1;
        Map<String, String> footer = Map.of(FooterKeys.FORMAT, "1", FooterKeys.ROWS, Integer.toString(rows),
                FooterKeys.MIN_TS, Long.toString(TestBatches.tsOf(first)), FooterKeys.MAX_TS, Long.toString(TestBatches.tsOf(last)),
                FooterKeys.MIN_OFFSET, Long.toString(first), FooterKeys.MAX_OFFSET, Long.toString(last));
        SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(SCHEMA)
                .withCompressionCodec(CompressionCodecName.ZSTD).withExtraMetaData(footer).build()) {
            for (long offset = first; offset <= last; offset++) {
                writer.write(groups.newGroup().append("ts", TestBatches.tsOf(offset)).append("offset", offset)
                        .append("topic", TestBatches.topicOf(offset))
                        .append("data", org.apache.parquet.io.api.Binary.fromConstantByteArray(TestBatches.payloadOf(offset))));
            }
        }
    }
}
