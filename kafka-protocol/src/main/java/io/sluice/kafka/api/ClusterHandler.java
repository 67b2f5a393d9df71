package io.sluice.kafka.api;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;

import io.sluice.kafka.KafkaAuthorizer;
import io.sluice.kafka.codec.ApiVersionsTable;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.streams.Stream;

/**
 * ApiVersions, Metadata and DescribeCluster: the cluster of one broker and its topics. A client
 * sees a topic if it may read or write it; topics are never created by asking for them
 * (auto-creation is off: an unknown topic is UNKNOWN_TOPIC_OR_PARTITION).
 */
final class ClusterHandler {
    private final KafkaTopics topics;
    private final KafkaAuthorizer authorizer;

    ClusterHandler(KafkaTopics topics, KafkaAuthorizer authorizer) {
        this.topics = topics;
        this.authorizer = authorizer;
    }

    static ApiVersionsResponseData apiVersions() {
        return new ApiVersionsResponseData().setApiKeys(ApiVersionsTable.collection());
    }

    MetadataResponseData metadata(Request request, Node node) {
        MetadataRequestData data = request.as(MetadataRequest.class).data();
        MetadataResponseData response = new MetadataResponseData()
                .setClusterId(node.clusterId())
                .setControllerId(node.id());
        response.brokers().add(new MetadataResponseBroker().setNodeId(node.id()).setHost(node.host()).setPort(node.port()));
        ClientIdentity identity = request.identity();
        // v0: an empty list means every topic; v1 and later: null does, and empty means none.
        boolean all = data.topics() == null || (request.version() == 0 && data.topics().isEmpty());
        if (all) {
            for (Stream stream : topics.streams().all()) {
                if (visible(identity, stream.name())) {
                    response.topics().add(topic(stream, request.version()));
                }
            }
            return response;
        }
        for (MetadataRequestData.MetadataRequestTopic wanted : data.topics()) {
            Stream stream = topics.find(wanted.name(), wanted.topicId());
            if (stream == null) {
                response.topics().add(new MetadataResponseTopic().setName(wanted.name()).setTopicId(wanted.topicId())
                        .setErrorCode((wanted.name() == null ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION).code()));
            } else if (!visible(identity, stream.name())) {
                response.topics().add(new MetadataResponseTopic().setName(stream.name())
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
            } else {
                response.topics().add(topic(stream, request.version()));
            }
        }
        return response;
    }

    private boolean visible(ClientIdentity identity, String topic) {
        return authorizer.mayRead(identity, topic) || authorizer.mayWrite(identity, topic);
    }

    private static MetadataResponseTopic topic(Stream stream, short version) {
        MetadataResponseTopic topic = new MetadataResponseTopic()
                .setName(stream.name())
                .setTopicId(KafkaTopics.topicId(stream.name()))
                .setIsInternal(false);
        List<Integer> replicas = List.of(Node.ID);
        for (int p = 0; p < stream.partitions(); p++) {
            topic.partitions().add(new MetadataResponsePartition()
                    .setPartitionIndex(p)
                    .setLeaderId(Node.ID)
                    .setLeaderEpoch(Node.LEADER_EPOCH)
                    .setReplicaNodes(replicas)
                    .setIsrNodes(replicas)
                    .setOfflineReplicas(new ArrayList<>()));
        }
        return topic;
    }

    static DescribeClusterResponseData describeCluster(Node node) {
        DescribeClusterResponseData response = new DescribeClusterResponseData()
                .setClusterId(node.clusterId())
                .setControllerId(node.id());
        response.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker()
                .setBrokerId(node.id()).setHost(node.host()).setPort(node.port()));
        return response;
    }
}
