package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.exchange.Exchange;
import io.sluice.exchange.ExchangeQuery;
import io.sluice.exchange.Exchanges;
import io.sluice.stream.Column;
import io.sluice.stream.ColumnBatch;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.Schema;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code GET /api/v4/exchanges/{name}/records?start=&end=&limit=&format=json|csv|parquet}: the
 * records with {@code ts} in [start, end] (epoch milliseconds, both inclusive), from the same
 * merged read of files, queued batches and the ring that the query channel serves, streamed in
 * chunks.
 *
 * <p>Bounded: a read returns at most {@code limit} records (default {@value #DEFAULT_LIMIT}, at most
 * {@code http_server.max_records}). A range holding more is refused before anything is sent, with
 * a 400 that says so, rather than cut short silently. The check reads the range once (up to one
 * record past the limit), which also finds the columns the range has (SPI signals differ between
 * files); the rows are then read again as they are sent.
 */
public final class RecordsEndpoint implements Endpoint {
    static final int DEFAULT_LIMIT = 10_000;

    private final Exchanges exchanges;
    private final int maxRecords;

    public RecordsEndpoint(Exchanges exchanges, int maxRecords) {
        this.exchanges = exchanges;
        this.maxRecords = maxRecords;
    }

    /** The download formats. */
    enum Format {
        JSON(Reply.JSON, "json"), CSV("text/csv; charset=utf-8", "csv"), PARQUET("application/vnd.apache.parquet", "parquet");

        final String contentType;
        final String extension;

        Format(String contentType, String extension) {
            this.contentType = contentType;
            this.extension = extension;
        }
    }

    /** What the first read found: rows (up to limit + 1) and the union of the chunks' columns. */
    private record Survey(long rows, Schema schema) {
    }

    @Override
    public Reply handle(ApiRequest request) throws ApiException {
        Exchange exchange = ExchangeEndpoints.exchange(exchanges, request.pathParam("name"));
        long start = request.longQuery("start", 0, 0, Long.MAX_VALUE);
        long end = request.longQuery("end", Long.MAX_VALUE, 0, Long.MAX_VALUE);
        if (end < start) {
            throw ApiException.badParameter("'end' (" + end + ") is before 'start' (" + start + ")");
        }
        long limit = request.longQuery("limit", Math.min(DEFAULT_LIMIT, maxRecords), 1, maxRecords);
        Format format = format(request.query("format"));
        Survey survey = survey(exchange, start, end, limit);
        if (survey.rows() > limit) {
            throw ApiException.badParameter("exchange '" + exchange.name() + "' holds more than " + limit
                    + " records with ts in [" + start + ", " + end + "]; narrow the range, or raise 'limit' (at most "
                    + maxRecords + ", http_server.max_records)");
        }
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("exchange", exchange.name());
        meta.put("start", start);
        meta.put("end", end);
        String fileName = format == Format.JSON ? null
                : exchange.name().replaceAll("[^A-Za-z0-9_.-]", "_") + "-" + start + "-" + end + "." + format.extension;
        return Reply.streamed(format.contentType, fileName,
                out -> send(exchange, start, end, limit, open(format, survey.schema(), out, meta, exchange.name())));
    }

    private static Format format(String text) throws ApiException {
        if (text == null || text.isEmpty()) {
            return Format.JSON;
        }
        try {
            return Format.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.badParameter("'format' must be json, csv or parquet, got '" + ApiRequest.clip(text) + "'");
        }
    }

    private static Survey survey(Exchange exchange, long start, long end, long limit) throws ApiException {
        long rows = 0;
        Schema schema = Schema.of(Column.TS, Column.OFFSET);
        try (ExchangeQuery query = exchange.query(start, end)) {
            for (ColumnBatch chunk = query.nextChunk(); chunk != null && rows <= limit; chunk = query.nextChunk()) {
                rows += chunk.rows();
                schema = schema.union(chunk.schema());
            }
        } catch (IOException | UncheckedIOException e) {
            throw new ApiException(HttpResponseStatus.INTERNAL_SERVER_ERROR, ApiCode.UNKNOWN_MISTAKE,
                    "reading exchange '" + exchange.name() + "' failed: " + e.getMessage());
        }
        return new Survey(rows, nullableValues(schema));
    }

    /** The keys stay required; any other column may be missing from some chunk, so it is nullable. */
    private static Schema nullableValues(Schema schema) {
        List<Column> columns = new ArrayList<>(schema.size());
        for (Column column : schema.columns()) {
            boolean key = column.name().equals(Column.TS.name()) || column.name().equals(Column.OFFSET.name());
            columns.add(key || column.nullable() ? column : Column.nullable(column.name(), column.type()));
        }
        return Schema.of(columns);
    }

    private static RecordSink open(Format format, Schema schema, OutputStream out, Map<String, Object> meta,
                                   String exchange) throws IOException {
        return switch (format) {
            case JSON -> new JsonRecordSink(schema, out, meta);
            case CSV -> new CsvRecordSink(schema, out);
            case PARQUET -> new ParquetRecordSink(schema, out, exchange);
        };
    }

    /** Reads the range again and sends at most {@code limit} rows (more may have arrived since the survey). */
    private static void send(Exchange exchange, long start, long end, long limit, RecordSink sink) throws IOException {
        long rows = 0;
        try (ExchangeQuery query = exchange.query(start, end)) {
            for (ColumnBatch chunk = query.nextChunk(); chunk != null && rows < limit; chunk = query.nextChunk()) {
                int take = (int) Math.min(chunk.rows(), limit - rows);
                sink.write(chunk.slice(chunk.start(), chunk.start() + take));
                rows += take;
            }
            sink.finish(rows);
        } catch (IOException | RuntimeException e) {
            sink.abandon(e);
            throw e;
        }
    }

    /** The chunk's vectors in the order of {@code schema}; null for a column the chunk lacks. */
    static ColumnVector[] vectors(ColumnBatch chunk, Schema schema) {
        ColumnVector[] vectors = new ColumnVector[schema.size()];
        for (int c = 0; c < vectors.length; c++) {
            String name = schema.column(c).name();
            vectors[c] = chunk.schema().contains(name) ? chunk.vector(name) : null;
        }
        return vectors;
    }
}
