package io.sluice.kafka.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DescribeConfigsRequest;

import io.sluice.kafka.KafkaAuthorizer;
import io.sluice.kafka.KafkaSettings;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.storage.LogSettings;
import io.sluice.streams.InvalidStreamException;
import io.sluice.streams.Stream;
import io.sluice.streams.StreamException;
import io.sluice.streams.StreamName;
import io.sluice.streams.StreamSettings;

/**
 * CreateTopics, DeleteTopics and DescribeConfigs: Kafka topics are streams.
 * <ul>
 *  <li>CreateTopics creates a stream whose MQTT topic filter is the topic's name, with the
 *      listener's defaults for streams created at run time; the topic configs {@code retention.ms},
 *      {@code retention.bytes}, {@code segment.bytes}, {@code segment.ms} and {@code cleanup.policy}
 *      are honoured, any other is INVALID_CONFIG. One replica only; explicit assignments are refused.</li>
 *  <li>DeleteTopics deletes a stream created at run time; one defined in the configuration file is
 *      POLICY_VIOLATION.</li>
 *  <li>DescribeConfigs shows a topic's settings by Kafka's names (read-only), plus
 *      {@code sluice.mqtt.topic}; a broker has none to show.</li>
 * </ul>
 * Creating and deleting need write permission on the topic's name.
 */
final class TopicsHandler {
    private static final byte TOPIC = 2;
    private static final byte BROKER = 4;
    private static final byte SOURCE_DYNAMIC_TOPIC = 1;
    private static final byte SOURCE_STATIC_BROKER = 4;
    private static final byte TYPE_STRING = 2;
    private static final byte TYPE_INT = 3;
    private static final byte TYPE_LONG = 5;
    /** Kafka's topic config names and the storage keys they set. */
    private static final Map<String, String> CONFIGS = Map.of(
            "retention.ms", LogSettings.RETENTION_MS,
            "retention.bytes", LogSettings.RETENTION_BYTES,
            "segment.bytes", LogSettings.SEGMENT_BYTES,
            "segment.ms", LogSettings.SEGMENT_MS,
            "cleanup.policy", LogSettings.CLEANUP_POLICY);

    private final KafkaTopics topics;
    private final KafkaAuthorizer authorizer;
    private final KafkaSettings settings;

    TopicsHandler(KafkaTopics topics, KafkaAuthorizer authorizer, KafkaSettings settings) {
        this.topics = topics;
        this.authorizer = authorizer;
        this.settings = settings;
    }

    CreateTopicsResponseData createTopics(Request request) {
        CreateTopicsRequestData data = request.as(CreateTopicsRequest.class).data();
        ClientIdentity identity = request.identity();
        CreateTopicsResponseData response = new CreateTopicsResponseData();
        for (CreateTopicsRequestData.CreatableTopic topic : data.topics()) {
            CreatableTopicResult result = new CreatableTopicResult().setName(topic.name());
            try {
                StreamSettings stream = settings(topic);
                if (!authorizer.mayWrite(identity, topic.name())) {
                    throw new TopicError(Errors.TOPIC_AUTHORIZATION_FAILED, "not authorised to create '" + topic.name() + "'");
                }
                if (topics.byName(topic.name()) != null) {
                    throw new TopicError(Errors.TOPIC_ALREADY_EXISTS, "topic '" + topic.name() + "' already exists");
                }
                if (!data.validateOnly()) {
                    topics.streams().create(stream);
                }
                result.setTopicId(KafkaTopics.topicId(topic.name()))
                        .setNumPartitions(stream.partitions())
                        .setReplicationFactor((short) 1)
                        .setConfigs(createdConfigs(stream));
            } catch (TopicError e) {
                result.setErrorCode(e.error.code()).setErrorMessage(e.getMessage());
            } catch (StreamException e) {
                Errors error = e.reason() == StreamException.Reason.EXISTS ? Errors.TOPIC_ALREADY_EXISTS : Errors.INVALID_REQUEST;
                result.setErrorCode(error.code()).setErrorMessage(e.getMessage());
            } catch (InvalidStreamException e) {
                Errors error = e.key().equals("partitions") ? Errors.INVALID_PARTITIONS : Errors.INVALID_CONFIG;
                result.setErrorCode(error.code()).setErrorMessage(e.getMessage());
            }
            response.topics().add(result);
        }
        return response;
    }

    private StreamSettings settings(CreateTopicsRequestData.CreatableTopic topic) throws TopicError {
        String problem = StreamName.problem(topic.name());
        if (problem != null) {
            throw new TopicError(Errors.INVALID_TOPIC_EXCEPTION, "topic name " + problem);
        }
        int partitions = topic.numPartitions() == -1 ? 1 : topic.numPartitions();
        if (partitions < 1 || partitions > StreamSettings.MAX_PARTITIONS) {
            throw new TopicError(Errors.INVALID_PARTITIONS, "partitions must be between 1 and "
                    + StreamSettings.MAX_PARTITIONS + ", got " + topic.numPartitions());
        }
        if (topic.replicationFactor() != -1 && topic.replicationFactor() != 1) {
            throw new TopicError(Errors.INVALID_REPLICATION_FACTOR, "this server keeps one replica; replication factor "
                    + topic.replicationFactor() + " is not possible");
        }
        if (!topic.assignments().isEmpty()) {
            throw new TopicError(Errors.INVALID_REQUEST, "replica assignments are not supported: there is one broker");
        }
        LogSettings.Builder log = settings.createdLog().toBuilder();
        for (CreateTopicsRequestData.CreatableTopicConfig config : topic.configs()) {
            String key = CONFIGS.get(config.name());
            if (key == null) {
                throw new TopicError(Errors.INVALID_CONFIG, "topic config '" + config.name() + "' is not supported; supported: "
                        + String.join(", ", CONFIGS.keySet()));
            }
            try {
                log.set(key, config.value());
            } catch (IllegalArgumentException e) {
                throw new TopicError(Errors.INVALID_CONFIG, config.name() + ": " + e.getMessage());
            }
        }
        try {
            return new StreamSettings(topic.name(), topic.name(), partitions, settings.createdPartitionKey(),
                    settings.createdEngine(), log.build());
        } catch (IllegalArgumentException e) {
            throw new TopicError(Errors.INVALID_CONFIG, e.getMessage());
        }
    }

    private static List<CreatableTopicConfigs> createdConfigs(StreamSettings stream) {
        List<CreatableTopicConfigs> configs = new ArrayList<>();
        configs(stream).forEach((name, value) -> configs.add(new CreatableTopicConfigs()
                .setName(name).setValue(value).setReadOnly(true).setConfigSource(SOURCE_DYNAMIC_TOPIC)));
        return configs;
    }

    /** A stream's settings by Kafka's topic config names. */
    private static Map<String, String> configs(StreamSettings stream) {
        LogSettings log = stream.log();
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put("cleanup.policy", log.cleanupPolicy().configName());
        configs.put("retention.ms", Long.toString(log.retentionMs()));
        configs.put("retention.bytes", Long.toString(log.retentionBytes()));
        configs.put("segment.bytes", Integer.toString(log.segmentBytes()));
        configs.put("segment.ms", Long.toString(log.segmentMs()));
        configs.put("message.timestamp.type", "CreateTime");
        configs.put("compression.type", "uncompressed");
        configs.put("sluice.mqtt.topic", stream.topic());
        return configs;
    }

    DeleteTopicsResponseData deleteTopics(Request request) {
        DeleteTopicsRequestData data = request.as(DeleteTopicsRequest.class).data();
        ClientIdentity identity = request.identity();
        DeleteTopicsResponseData response = new DeleteTopicsResponseData();
        if (request.version() >= 6) {
            for (DeleteTopicsRequestData.DeleteTopicState topic : data.topics()) {
                Stream stream = topics.find(topic.name(), topic.topicId());
                DeletableTopicResult result = new DeletableTopicResult().setName(stream == null ? topic.name() : stream.name())
                        .setTopicId(topic.topicId());
                response.responses().add(delete(identity, stream, result, topic.name() == null));
            }
        } else {
            for (String name : data.topicNames()) {
                DeletableTopicResult result = new DeletableTopicResult().setName(name);
                response.responses().add(delete(identity, topics.byName(name), result, false));
            }
        }
        return response;
    }

    private DeletableTopicResult delete(ClientIdentity identity, Stream stream, DeletableTopicResult result, boolean byId) {
        if (stream == null) {
            return result.setErrorCode((byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
        }
        if (!authorizer.mayWrite(identity, stream.name())) {
            return result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        }
        try {
            topics.streams().delete(stream.name());
            return result;
        } catch (StreamException e) {
            Errors error = switch (e.reason()) {
                case CONFIGURED -> Errors.POLICY_VIOLATION;
                case UNKNOWN -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
                case EXISTS -> Errors.INVALID_REQUEST;
            };
            return result.setErrorCode(error.code()).setErrorMessage(e.getMessage());
        }
    }

    DescribeConfigsResponseData describeConfigs(Request request) {
        DescribeConfigsRequestData data = request.as(DescribeConfigsRequest.class).data();
        ClientIdentity identity = request.identity();
        DescribeConfigsResponseData response = new DescribeConfigsResponseData();
        for (DescribeConfigsRequestData.DescribeConfigsResource resource : data.resources()) {
            DescribeConfigsResult result = new DescribeConfigsResult()
                    .setResourceType(resource.resourceType()).setResourceName(resource.resourceName());
            response.results().add(result);
            if (resource.resourceType() == BROKER) {
                continue;
            }
            if (resource.resourceType() != TOPIC) {
                result.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("only topic and broker configs can be described");
                continue;
            }
            Stream stream = topics.byName(resource.resourceName());
            if (stream == null) {
                result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage("topic '" + resource.resourceName() + "' does not exist");
            } else if (!authorizer.mayRead(identity, stream.name()) && !authorizer.mayWrite(identity, stream.name())) {
                result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            } else {
                result.setConfigs(describe(stream, resource.configurationKeys()));
            }
        }
        return response;
    }

    private static List<DescribeConfigsResourceResult> describe(Stream stream, List<String> keys) {
        byte source = stream.isConfigured() ? SOURCE_STATIC_BROKER : SOURCE_DYNAMIC_TOPIC;
        List<DescribeConfigsResourceResult> results = new ArrayList<>();
        configs(stream.settings()).forEach((name, value) -> {
            if (keys == null || keys.contains(name)) {
                results.add(new DescribeConfigsResourceResult().setName(name).setValue(value).setReadOnly(true)
                        .setConfigSource(source).setIsSensitive(false).setConfigType(type(name)));
            }
        });
        return results;
    }

    private static byte type(String name) {
        return switch (name) {
            case "retention.ms", "retention.bytes", "segment.ms" -> TYPE_LONG;
            case "segment.bytes" -> TYPE_INT;
            default -> TYPE_STRING;
        };
    }

    /** A topic refused, with the error to answer. */
    private static final class TopicError extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient Errors error;

        TopicError(Errors error, String message) {
            super(message);
            this.error = error;
        }
    }
}
