package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an endpoint answers: a status, a content type and either the whole body or a
 * {@link BodyWriter} that streams it (sent with chunked transfer encoding, with back-pressure).
 *
 * @param status      the HTTP status
 * @param contentType the Content-Type header
 * @param body        the whole body, or null when {@code writer} streams it
 * @param writer      streams the body, or null
 * @param fileName    a download's file name (Content-Disposition), or null
 * @param cacheable   whether browsers may cache it (static files)
 */
public record Reply(HttpResponseStatus status, String contentType, byte[] body, BodyWriter writer, String fileName,
                    boolean cacheable) {
    /** The JSON content type of every API answer. */
    public static final String JSON = "application/json; charset=utf-8";

    /** Writes a streamed body; runs on the worker thread that handles the request. */
    @FunctionalInterface
    public interface BodyWriter {
        void writeTo(OutputStream out) throws IOException;
    }

    /** NanoMQ's success answer: {@code {"code":0,"data":data}}. */
    public static Reply data(Object data) {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("code", ApiCode.SUCCEED.number());
        answer.put("data", data);
        return json(HttpResponseStatus.OK, answer);
    }

    /** A paged list: {@code {"code":0,"data":[...],"meta":{page, limit, count, hasnext}}} as EMQX pages. */
    public static Reply page(Object data, Map<String, Object> meta) {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("code", ApiCode.SUCCEED.number());
        answer.put("data", data);
        answer.put("meta", meta);
        return json(HttpResponseStatus.OK, answer);
    }

    /** {@code {"code":0}} alone. */
    public static Reply ok() {
        return json(HttpResponseStatus.OK, Map.of("code", ApiCode.SUCCEED.number()));
    }

    /** A refusal: {@code {"code":<NanoMQ code>,"message":"..."}}. */
    public static Reply error(ApiException e) {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("code", e.code().number());
        answer.put("message", e.getMessage());
        return json(e.status(), answer);
    }

    public static Reply json(HttpResponseStatus status, Object value) {
        return new Reply(status, JSON, JsonWriter.write(value).getBytes(StandardCharsets.UTF_8), null, null, false);
    }

    public static Reply text(HttpResponseStatus status, String contentType, String body) {
        return new Reply(status, contentType, body.getBytes(StandardCharsets.UTF_8), null, null, false);
    }

    /** A body streamed by {@code writer}; {@code fileName} makes it a download (null: shown inline). */
    public static Reply streamed(String contentType, String fileName, BodyWriter writer) {
        return new Reply(HttpResponseStatus.OK, contentType, null, writer, fileName, false);
    }

    /** A static file browsers may cache. */
    public static Reply file(String contentType, byte[] body) {
        return new Reply(HttpResponseStatus.OK, contentType, body, null, null, true);
    }
}
