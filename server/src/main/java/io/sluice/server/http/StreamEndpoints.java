package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.streams.Stream;
import io.sluice.streams.StreamCounter;
import io.sluice.streams.Streams;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v4/streams} and {@code /api/v4/streams/{name}}: each stream's topic filter,
 * partitions with their start and end offsets, records readable and counters. Empty without streams.
 */
public final class StreamEndpoints {
    private final Streams streams;

    /** @param streams the streams, or null when none is configured */
    public StreamEndpoints(Streams streams) {
        this.streams = streams;
    }

    public Reply list(ApiRequest request) {
        List<Object> data = new ArrayList<>();
        if (streams != null) {
            for (Stream stream : streams.all()) {
                data.add(view(stream));
            }
        }
        return Reply.data(data);
    }

    public Reply get(ApiRequest request) throws ApiException {
        String name = request.pathParam("name");
        Stream stream = streams == null ? null : streams.get(name);
        if (stream == null) {
            throw new ApiException(HttpResponseStatus.NOT_FOUND, ApiCode.REQ_PARAM_ERROR,
                    "no stream '" + ApiRequest.clip(name) + "'");
        }
        return Reply.data(view(stream));
    }

    private static Map<String, Object> view(Stream stream) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("name", stream.name());
        view.put("topic", stream.topic());
        view.put("partitions", stream.partitions());
        List<Object> partitions = new ArrayList<>();
        long records = 0;
        for (int p = 0; p < stream.partitions(); p++) {
            long startOffset = stream.startOffset(p);
            long endOffset = stream.endOffset(p);
            records += endOffset - startOffset;
            Map<String, Object> partition = new LinkedHashMap<>();
            partition.put("partition", p);
            partition.put("start_offset", startOffset);
            partition.put("end_offset", endOffset);
            partitions.add(partition);
        }
        view.put("records", records);
        view.put("partition_offsets", partitions);
        Map<String, Object> counters = new LinkedHashMap<>();
        for (StreamCounter counter : StreamCounter.values()) {
            counters.put(counter.metricName(), stream.counter(counter));
        }
        view.put("counters", counters);
        return view;
    }
}
