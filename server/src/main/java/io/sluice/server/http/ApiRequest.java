package io.sluice.server.http;

import io.netty.handler.codec.http.HttpMethod;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * One request as an endpoint sees it: method, path parameters ({@code {clientid}} of the route),
 * query parameters, the body and who sent it. Parameter readers refuse bad values with a 400
 * whose message names the parameter.
 *
 * @param method      the HTTP method
 * @param path        the decoded path
 * @param pathParams  the route's named path segments, decoded
 * @param query       the query parameters, decoded
 * @param body        the request body (at most {@code http_server.max_body} bytes)
 * @param user        the authenticated user, or null when the server asks for no credentials
 */
public record ApiRequest(HttpMethod method, String path, Map<String, String> pathParams,
                         Map<String, List<String>> query, byte[] body, String user) {

    /** A named segment of the route, such as {@code clientid}. */
    public String pathParam(String name) {
        return pathParams.get(name);
    }

    /** The first value of query parameter {@code name}, or null. */
    public String query(String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** An integer query parameter in [{@code min}, {@code max}], or {@code fallback} when absent. */
    public long longQuery(String name, long fallback, long min, long max) throws ApiException {
        String text = query(name);
        if (text == null || text.isEmpty()) {
            return fallback;
        }
        long value;
        try {
            value = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw ApiException.badParameter("parameter '" + name + "' must be an integer, got '" + clip(text) + "'");
        }
        if (value < min || value > max) {
            throw ApiException.badParameter("parameter '" + name + "' must be between " + min + " and " + max
                    + ", got " + value);
        }
        return value;
    }

    /** The body parsed as one JSON object; 400 with NanoMQ's code 109 if it is not one. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> jsonObject() throws ApiException {
        Object value = json();
        if (!(value instanceof Map)) {
            throw new ApiException(io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST,
                    ApiCode.REQ_PARAMS_JSON_FORMAT_ILLEGAL, "the body must be a JSON object");
        }
        return (Map<String, Object>) value;
    }

    /** The body parsed as JSON; 400 with NanoMQ's code 109 if it does not parse. */
    public Object json() throws ApiException {
        try {
            return JsonReader.parse(new String(body, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new ApiException(io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST,
                    ApiCode.REQ_PARAMS_JSON_FORMAT_ILLEGAL, e.getMessage());
        }
    }

    /** A caller's value quoted in a message: bounded, so a huge parameter does not make a huge answer. */
    public static String clip(String text) {
        return text.length() <= 64 ? text : text.substring(0, 64) + "...";
    }
}
