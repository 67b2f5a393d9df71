package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * {@code GET /health}: 200 {@code {"status":"UP"}} while the server runs, 503
 * {@code {"status":"DOWN"}} once it is stopping. Parts that have more to say about their health
 * add a {@link Detail}: its entries are added to the answer, and a detail that reports
 * {@code "UP": false} turns the status DOWN.
 */
public final class HealthEndpoint implements Endpoint {
    /** More to say about the server's health: entries for the answer. */
    public interface Detail extends Supplier<Map<String, Object>> {
    }

    private final BooleanSupplier running;
    private final List<Detail> details;

    public HealthEndpoint(BooleanSupplier running, List<Detail> details) {
        this.running = running;
        this.details = List.copyOf(details);
    }

    @Override
    public Reply handle(ApiRequest request) {
        boolean up = running.getAsBoolean();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("status", "UP");
        for (Detail detail : details) {
            Map<String, Object> entries = detail.get();
            up &= !Boolean.FALSE.equals(entries.get("UP"));
            entries.forEach((key, value) -> {
                if (!key.equals("UP")) {
                    answer.put(key, value);
                }
            });
        }
        answer.put("status", up ? "UP" : "DOWN");
        return Reply.text(up ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, Reply.JSON,
                JsonWriter.write(answer) + "\n");
    }
}
