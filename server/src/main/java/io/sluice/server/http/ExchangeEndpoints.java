package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.exchange.CaptureExtent;
import io.sluice.exchange.Exchange;
import io.sluice.exchange.ExchangeStatus;
import io.sluice.exchange.Exchanges;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v4/exchanges} and {@code /api/v4/exchanges/{name}}: per exchange, whether
 * capture keeps up: capture rates, ring fill, the writer's queue, files and disk, the
 * write-ahead log's size, the oldest and newest {@code ts} held, and every counter.
 */
public final class ExchangeEndpoints {
    private final Exchanges exchanges;
    private final CaptureRates rates;

    public ExchangeEndpoints(Exchanges exchanges, CaptureRates rates) {
        this.exchanges = exchanges;
        this.rates = rates;
    }

    public Reply list(ApiRequest request) {
        List<Object> data = new ArrayList<>();
        for (Exchange exchange : exchanges.all()) {
            data.add(view(exchange));
        }
        return Reply.data(data);
    }

    public Reply get(ApiRequest request) throws ApiException {
        return Reply.data(view(exchange(exchanges, request.pathParam("name"))));
    }

    /** The exchange called {@code name}; 404 naming it if there is none. */
    static Exchange exchange(Exchanges exchanges, String name) throws ApiException {
        Exchange exchange = exchanges.get(name);
        if (exchange == null) {
            throw new ApiException(HttpResponseStatus.NOT_FOUND, ApiCode.REQ_PARAM_ERROR,
                    "no exchange '" + ApiRequest.clip(name) + "'");
        }
        return exchange;
    }

    private Map<String, Object> view(Exchange exchange) {
        ExchangeStatus status = exchange.status();
        CaptureExtent extent = exchange.extent();
        int cap = exchange.settings().ring().cap();
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("name", status.name());
        view.put("topic", status.topic());
        view.put("stream_type", status.streamType());
        view.put("plugin", status.plugin());
        view.put("durability", exchange.durability());
        view.put("rates", rates.of(status.name()));
        view.put("ring_cap", cap);
        view.put("ring_rows", status.activeRows());
        view.put("ring_fill", cap == 0 ? 0 : Math.round(status.activeRows() * 1000.0 / cap) / 1000.0);
        view.put("ring_backlog", status.ringBacklog());
        view.put("writer_queue", status.pendingBatches());
        view.put("spilled_batches", status.spilledBatches());
        view.put("files", status.files());
        view.put("disk_bytes", status.fileBytes());
        view.put("wal_bytes", extent.walBytes());
        view.put("oldest_ts", extent.oldestTs());
        view.put("newest_ts", extent.newestTs());
        view.put("counters", status.counters());
        return view;
    }
}
