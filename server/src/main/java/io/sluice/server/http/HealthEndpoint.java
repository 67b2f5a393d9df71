package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code GET /health}: 200 {@code {"status":"UP"}} while nothing is wrong, 503
 * {@code {"status":"DOWN","problems":[…]}} while the server is stopping or a part cannot do its
 * work (the broker state, once its journal's writer thread failed; an exchange whose write-ahead
 * log is offline or unwritable, or whose Parquet writer is dead), one line per problem.
 * Forwarding goes on through all of these.
 */
public final class HealthEndpoint implements Endpoint {
    private final Supplier<List<String>> problems;

    /** {@code problems} is asked on every request: empty while all is well. */
    public HealthEndpoint(Supplier<List<String>> problems) {
        this.problems = problems;
    }

    @Override
    public Reply handle(ApiRequest request) {
        List<String> now = problems.get();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("status", now.isEmpty() ? "UP" : "DOWN");
        if (!now.isEmpty()) {
            answer.put("problems", now);
        }
        return Reply.text(now.isEmpty() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, Reply.JSON,
                JsonWriter.write(answer) + "\n");
    }
}
