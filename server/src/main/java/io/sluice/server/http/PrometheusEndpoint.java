package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * {@code GET /metrics} and {@code GET /api/v4/prometheus}: everything in the registry in the
 * Prometheus text format.
 */
public final class PrometheusEndpoint implements Endpoint {
    private final PrometheusRegistry registry;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    public PrometheusEndpoint(PrometheusRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Reply handle(ApiRequest request) throws ApiException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(16 * 1024);
        try {
            writer.write(body, registry.scrape());
        } catch (IOException e) {
            throw new ApiException(HttpResponseStatus.INTERNAL_SERVER_ERROR, ApiCode.UNKNOWN_MISTAKE,
                    "collecting metrics failed: " + e);
        }
        return new Reply(HttpResponseStatus.OK, writer.getContentType(), body.toByteArray(), null, null, false);
    }
}
