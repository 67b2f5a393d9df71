package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.LocalPublisher;
import io.sluice.bridges.MessageProperties;
import io.sluice.bridges.UserProperty;
import io.sluice.broker.topic.InvalidTopicException;
import io.sluice.broker.topic.TopicName;
import io.sluice.net.auth.ClientIdentity;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code POST /api/v4/mqtt/publish} and {@code /mqtt/publish_batch}, NanoMQ's bodies:
 * <pre>
 * {"topic": "a/b", "payload": "hello", "encoding": "plain", "qos": 1, "retain": false,
 *  "clientid": "api", "properties": {"payload_format_indicator": 1, "message_expiry_interval": 60,
 *  "content_type": "text/plain", "response_topic": "r", "correlation_data": "c",
 *  "user_properties": {"k": "v"}}}
 * </pre>
 * {@code topics = "a,b"} publishes to several topics; {@code encoding = base64} decodes the payload
 * first. The message goes through the same checks as a client's PUBLISH (topic, {@code $SYS}, the
 * ACL, as user {@code <http user>} and client id {@code clientid}); a QoS 1/2 publish is answered
 * once the message is as durable as a client's would be before its PUBACK. The batch takes a JSON
 * array of such objects and answers one result per object, in order: a bad one fails alone.
 */
public final class PublishEndpoint {
    /** The longest a QoS 1/2 publish waits to become durable before it is answered anyway. */
    private static final long DURABLE_WAIT_SECONDS = 10;
    private static final String DEFAULT_CLIENT_ID = "http_api";

    private final LocalPublisher publisher;
    private final int maxTopicLevels;

    public PublishEndpoint(LocalPublisher publisher, int maxTopicLevels) {
        this.publisher = publisher;
        this.maxTopicLevels = maxTopicLevels;
    }

    /** {@code POST /api/v4/mqtt/publish}. */
    public Reply publish(ApiRequest request) throws ApiException {
        publishOne(request.jsonObject(), request.user());
        return Reply.ok();
    }

    /** {@code POST /api/v4/mqtt/publish_batch}: {@code data} holds one {@code {topic, code[, message]}} per object. */
    public Reply publishBatch(ApiRequest request) throws ApiException {
        if (!(request.json() instanceof List<?> items)) {
            throw new ApiException(HttpResponseStatus.BAD_REQUEST, ApiCode.REQ_PARAMS_JSON_FORMAT_ILLEGAL,
                    "the body must be a JSON array of publish objects");
        }
        List<Object> results = new ArrayList<>(items.size());
        for (Object item : items) {
            Map<String, Object> result = new LinkedHashMap<>();
            try {
                if (!(item instanceof Map<?, ?> body)) {
                    throw new ApiException(HttpResponseStatus.BAD_REQUEST, ApiCode.REQ_PARAMS_JSON_FORMAT_ILLEGAL,
                            "each element must be a JSON object");
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> fields = (Map<String, Object>) body;
                result.put("topic", fields.get("topic") instanceof String t ? t : fields.get("topics"));
                publishOne(fields, request.user());
                result.put("code", ApiCode.SUCCEED.number());
            } catch (ApiException e) {
                result.put("code", e.code().number());
                result.put("message", e.getMessage());
            }
            results.add(result);
        }
        return Reply.data(results);
    }

    private void publishOne(Map<String, Object> body, String user) throws ApiException {
        List<String> topics = topics(body);
        byte[] payload = payload(body);
        int qos = (int) number(body, "qos", 0, 0, 2);
        boolean retain = bool(body, "retain");
        String clientId = body.get("clientid") instanceof String c && !c.isEmpty() ? c : DEFAULT_CLIENT_ID;
        MessageProperties properties = properties(body.get("properties"));
        ClientIdentity identity = new ClientIdentity(clientId, user, null);
        for (String topic : topics) {
            BridgeMessage message = new BridgeMessage(topic, payload, qos, retain, properties, clientId,
                    System.currentTimeMillis());
            CountDownLatch durable = new CountDownLatch(1);
            LocalPublisher.Outcome outcome = publisher.publish(identity, message, durable::countDown);
            if (outcome == LocalPublisher.Outcome.DENIED) {
                throw new ApiException(HttpResponseStatus.FORBIDDEN, ApiCode.REQ_PARAM_ERROR,
                        "the ACL does not let " + (user == null ? "the API" : "user '" + user + "'")
                                + " publish to '" + ApiRequest.clip(topic) + "'");
            }
            if (outcome == LocalPublisher.Outcome.INVALID_TOPIC) {
                throw ApiException.badParameter("'" + ApiRequest.clip(topic) + "' may not be published to");
            }
            awaitDurable(durable, topic);
        }
    }

    private static void awaitDurable(CountDownLatch durable, String topic) throws ApiException {
        try {
            if (!durable.await(DURABLE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, ApiCode.RPC_ERROR,
                        "the message to '" + ApiRequest.clip(topic) + "' was routed but is not durable after "
                                + DURABLE_WAIT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, ApiCode.RPC_ERROR, "interrupted");
        }
    }

    private List<String> topics(Map<String, Object> body) throws ApiException {
        Object single = body.get("topic");
        Object several = body.get("topics");
        List<String> topics = new ArrayList<>();
        if (single instanceof String topic) {
            topics.add(topic);
        } else if (several instanceof String list) {
            for (String topic : list.split(",")) {
                topics.add(topic.trim());
            }
        } else {
            throw new ApiException(HttpResponseStatus.BAD_REQUEST, ApiCode.MISSING_KEY_REQUEST_PARAMS,
                    "'topic' (a string) or 'topics' (comma-separated) is required");
        }
        for (String topic : topics) {
            try {
                TopicName.validate(topic, maxTopicLevels);
            } catch (InvalidTopicException e) {
                throw ApiException.badParameter(e.getMessage());
            }
            if (topic.indexOf('\0') >= 0 || topic.startsWith("$")) {
                throw ApiException.badParameter("'" + ApiRequest.clip(topic) + "' may not be published to"
                        + " (topics starting with $ and topics holding U+0000 are reserved)");
            }
        }
        return topics;
    }

    private static byte[] payload(Map<String, Object> body) throws ApiException {
        Object payload = body.getOrDefault("payload", "");
        if (!(payload instanceof String text)) {
            throw ApiException.badParameter("'payload' must be a string");
        }
        Object encoding = body.getOrDefault("encoding", "plain");
        if ("base64".equals(encoding)) {
            try {
                return Base64.getDecoder().decode(text);
            } catch (IllegalArgumentException e) {
                throw ApiException.badParameter("'payload' is not valid base64");
            }
        }
        if (!"plain".equals(encoding)) {
            throw ApiException.badParameter("'encoding' must be plain or base64");
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static MessageProperties properties(Object value) throws ApiException {
        if (value == null) {
            return MessageProperties.NONE;
        }
        if (!(value instanceof Map<?, ?> raw)) {
            throw ApiException.badParameter("'properties' must be an object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> p = (Map<String, Object>) raw;
        int format = (int) number(p, "payload_format_indicator", -1, 0, 1);
        long expiry = number(p, "message_expiry_interval", -1, 0, 0xFFFFFFFFL);
        String correlation = string(p, "correlation_data");
        List<UserProperty> users = new ArrayList<>();
        if (p.get("user_properties") instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                users.add(new UserProperty(String.valueOf(entry.getKey()), String.valueOf(entry.getValue())));
            }
        } else if (p.get("user_properties") != null) {
            throw ApiException.badParameter("'properties.user_properties' must be an object of names and values");
        }
        return new MessageProperties(format, expiry, string(p, "content_type"), string(p, "response_topic"),
                correlation == null ? null : correlation.getBytes(StandardCharsets.UTF_8), users);
    }

    private static long number(Map<String, Object> body, String key, long fallback, long min, long max)
            throws ApiException {
        Object value = body.get(key);
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof Long n) || n < min || n > max) {
            throw ApiException.badParameter("'" + key + "' must be an integer from " + min + " to " + max);
        }
        return n;
    }

    private static boolean bool(Map<String, Object> body, String key) throws ApiException {
        Object value = body.get(key);
        if (value == null) {
            return false;
        }
        if (!(value instanceof Boolean b)) {
            throw ApiException.badParameter("'" + key + "' must be true or false");
        }
        return b;
    }

    private static String string(Map<String, Object> body, String key) throws ApiException {
        Object value = body.get(key);
        if (value != null && !(value instanceof String)) {
            throw ApiException.badParameter("'" + key + "' must be a string");
        }
        return (String) value;
    }
}
