package io.sluice.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.kafka.api.KafkaTopics;
import io.sluice.kafka.codec.ApiVersionsTable;
import io.sluice.kafka.testing.RawKafka;
import io.sluice.kafka.testing.TestBroker;
import io.sluice.storage.LogSettings;
import io.sluice.streams.StreamSettings;

/** The listener at the wire level: versions, refusals, malformed frames, exact retries, codecs. */
class WireTest {
    @TempDir
    static Path dir;
    static TestBroker broker;

    @BeforeAll
    static void start() {
        broker = TestBroker.start(dir, List.of(StreamSettings.of("wire", "wire/#", 2, LogSettings.defaults()),
                StreamSettings.of("codecs", "codecs/#", 1, LogSettings.defaults())));
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void apiVersionsOfAnUnknownVersionIsAnsweredWithAV0BodyTheErrorAndTheTable() throws IOException {
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.API_VERSIONS.id)
                    .setRequestApiVersion((short) 9).setCorrelationId(77).setClientId("future-client");
            ByteBuffer frame = RequestUtils.serialize(header, (short) 2, new ApiVersionsRequestData(), (short) 3);
            byte[] bytes = new byte[frame.remaining()];
            frame.get(bytes);
            raw.send(bytes);
            ApiVersionsResponseData response = new ApiVersionsResponseData(raw.response((short) 0, 77), (short) 0);
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), response.errorCode());
            assertEquals(4, response.apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion());
            assertEquals(0, response.apiKeys().find(ApiKeys.PRODUCE.id).minVersion(), "librdkafka needs Produce 0");
            assertEquals(0, response.apiKeys().find(ApiKeys.JOIN_GROUP.id).minVersion(), "librdkafka needs JoinGroup 0");
        }
    }

    @Test
    void nothingIsAdvertisedThatIsNotAnswered() throws IOException {
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            ApiVersionsResponseData table = new ApiVersionsResponseData(
                    raw.call(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()
                            .setClientSoftwareName("raw").setClientSoftwareVersion("1")), (short) 3);
            List<String> advertised = new ArrayList<>();
            table.apiKeys().forEach(v -> advertised.add(ApiKeys.forId(v.apiKey()).name()));
            for (String forbidden : List.of("ADD_PARTITIONS_TO_TXN", "END_TXN", "CONSUMER_GROUP_HEARTBEAT",
                    "GET_TELEMETRY_SUBSCRIPTIONS", "OFFSET_FOR_LEADER_EPOCH", "SHARE_FETCH", "DESCRIBE_TOPIC_PARTITIONS")) {
                assertFalse(advertised.contains(forbidden), forbidden + " is advertised but not answered");
            }
        }
    }

    @Test
    void aParseableRequestOfAnUnadvertisedApiGetsUnsupportedVersionAndTheConnectionStays() throws IOException {
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            DescribeAclsResponseData acls = new DescribeAclsResponseData(
                    raw.call(ApiKeys.DESCRIBE_ACLS, (short) 3, new DescribeAclsRequestData().setResourceTypeFilter((byte) 1)
                            .setPatternTypeFilter((byte) 1).setOperation((byte) 1).setPermissionType((byte) 1)), (short) 3);
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), acls.errorCode());
            InitProducerIdResponseData ok = new InitProducerIdResponseData(
                    raw.call(ApiKeys.INIT_PRODUCER_ID, (short) 4, new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(1)),
                    (short) 4);
            assertEquals(Errors.NONE.code(), ok.errorCode(), "the connection still answers");
            assertTrue(ok.producerId() >= 0);
        }
    }

    @Test
    void listOffsetsV0IsAnsweredByHand() throws IOException {
        produce("wire", 0, MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(utf8("a")), new SimpleRecord(utf8("b"))));
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeShort(ApiKeys.LIST_OFFSETS.id);
            out.writeShort(0);
            out.writeInt(5);
            out.writeShort(3);
            out.writeBytes("old");
            out.writeInt(-1); // replica
            out.writeInt(1);
            out.writeShort(4);
            out.writeBytes("wire");
            out.writeInt(2);
            out.writeInt(0);
            out.writeLong(-1); // latest
            out.writeInt(1);
            out.writeInt(9);
            out.writeLong(-2);
            out.writeInt(1);
            raw.send(bytes.toByteArray());
            ByteBuffer response = ByteBuffer.wrap(raw.frame());
            assertEquals(5, response.getInt(), "correlation id");
            assertEquals(1, response.getInt(), "topics");
            assertEquals("wire", string(response));
            assertEquals(2, response.getInt(), "partitions");
            assertEquals(0, response.getInt());
            assertEquals(Errors.NONE.code(), response.getShort());
            assertEquals(1, response.getInt());
            assertTrue(response.getLong() >= 2, "the end offset of wire-0");
            assertEquals(9, response.getInt());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), response.getShort());
            assertEquals(0, response.getInt());
        }
    }

    private static String string(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.getShort()];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void produceV2IsRefusedPerPartitionWithoutClosingTheConnection() throws IOException {
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeShort(ApiKeys.PRODUCE.id);
            out.writeShort(2);
            out.writeInt(6);
            out.writeShort(-1); // no client id
            out.writeShort(1); // acks
            out.writeInt(1000);
            out.writeInt(1);
            out.writeShort(4);
            out.writeBytes("wire");
            out.writeInt(1);
            out.writeInt(0);
            out.writeInt(3);
            out.write(new byte[] {1, 2, 3});
            raw.send(bytes.toByteArray());
            ByteBuffer response = ByteBuffer.wrap(raw.frame());
            assertEquals(6, response.getInt());
            assertEquals(1, response.getInt());
            assertEquals("wire", string(response));
            assertEquals(1, response.getInt());
            assertEquals(0, response.getInt());
            assertEquals(Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT.code(), response.getShort());
            assertEquals(-1, response.getLong());
            assertEquals(-1, response.getLong(), "log append time (v2)");
            assertEquals(0, response.getInt(), "throttle time (v1+)");
            assertEquals(Errors.NONE.code(), new ApiVersionsResponseData(
                    raw.call(ApiKeys.API_VERSIONS, (short) 0, new ApiVersionsRequestData()), (short) 0).errorCode(),
                    "the connection still answers");
        }
    }

    @Test
    void aMalformedFrameClosesOnlyItsConnection() throws IOException {
        try (RawKafka bad = new RawKafka(broker.bootstrap()); RawKafka good = new RawKafka(broker.bootstrap())) {
            byte[] frame = good.request(ApiKeys.METADATA, (short) 12, new org.apache.kafka.common.message.MetadataRequestData());
            byte[] garbage = java.util.Arrays.copyOf(frame, frame.length + 16);
            for (int i = 14; i < garbage.length; i++) {
                garbage[i] = (byte) 0xff;
            }
            bad.send(garbage);
            assertTrue(bad.closedByServer(), "the malformed request closed its connection");
            assertEquals(Errors.NONE.code(), new ApiVersionsResponseData(
                    good.call(ApiKeys.API_VERSIONS, (short) 0, new ApiVersionsRequestData()), (short) 0).errorCode());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unknown api key", "too large", "too short"})
    void framesThatCannotBeAnsweredCloseTheConnection(String kind) throws IOException {
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            switch (kind) {
                case "unknown api key" -> raw.send(new byte[] {0x03, (byte) 0xe7, 0, 0, 0, 0, 0, 1, -1, -1});
                case "too large" -> raw.write(ByteBuffer.allocate(8).putInt(KafkaSettings.DEFAULT_MAX_REQUEST_SIZE + 1)
                        .putInt(0).array());
                default -> raw.send(new byte[] {0, 3, 0});
            }
            assertTrue(raw.closedByServer(), kind);
        }
    }

    /** Produces records to a partition at Produce v9; returns the partition's answer. */
    static ProduceResponseData.PartitionProduceResponse produce(String topic, int partition, MemoryRecords records)
            throws IOException {
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            return produce(raw, topic, partition, records);
        }
    }

    static ProduceResponseData.PartitionProduceResponse produce(RawKafka raw, String topic, int partition,
                                                                MemoryRecords records) throws IOException {
        return produceTo(raw, topic, partition, records);
    }

    /** Produces at v9 on an open connection; returns the partition's answer. */
    static ProduceResponseData.PartitionProduceResponse produceTo(RawKafka raw, String topic, int partition,
                                                                  MemoryRecords records) throws IOException {
        ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        ProduceRequestData.TopicProduceData data = new ProduceRequestData.TopicProduceData().setName(topic);
        data.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(records));
        topics.add(data);
        request.setTopicData(topics);
        ProduceResponseData response = new ProduceResponseData(raw.call(ApiKeys.PRODUCE, (short) 9, request), (short) 9);
        return response.responses().iterator().next().partitionResponses().get(0);
    }

    @Test
    void aRetriedIdempotentBatchGetsItsFirstOffsetAndIsStoredOnce() throws IOException {
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            long pid = new InitProducerIdResponseData(raw.call(ApiKeys.INIT_PRODUCER_ID, (short) 4,
                    new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(1)), (short) 4).producerId();
            MemoryRecords batch = MemoryRecords.withIdempotentRecords(Compression.NONE, pid, (short) 0, 0,
                    new SimpleRecord(utf8("once")), new SimpleRecord(utf8("only")));
            long end = broker.streams().get("wire").endOffset(1);
            ProduceResponseData.PartitionProduceResponse first = produce(raw, "wire", 1, batch);
            batch.buffer().rewind();
            ProduceResponseData.PartitionProduceResponse retry = produce(raw, "wire", 1, batch);
            assertEquals(Errors.NONE.code(), retry.errorCode());
            assertEquals(first.baseOffset(), retry.baseOffset(), "the retry is answered with the first offset");
            assertEquals(end + 2, broker.streams().get("wire").endOffset(1), "and stored once");
            MemoryRecords gap = MemoryRecords.withIdempotentRecords(Compression.NONE, pid, (short) 0, 5,
                    new SimpleRecord(utf8("gap")));
            assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code(), produce(raw, "wire", 1, gap).errorCode());
        }
    }

    @Test
    void everyPartitionIsAnsweredOnItsOwn() throws IOException {
        MemoryRecords good = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(utf8("fine")));
        MemoryRecords corrupt = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(utf8("broken")));
        corrupt.buffer().put(corrupt.buffer().limit() - 1, (byte) 0x55); // the CRC no longer matches
        ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        ProduceRequestData.TopicProduceData wire = new ProduceRequestData.TopicProduceData().setName("wire");
        wire.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(good));
        wire.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(1).setRecords(corrupt));
        wire.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(7).setRecords(good));
        topics.add(wire);
        ProduceRequestData.TopicProduceData nope = new ProduceRequestData.TopicProduceData().setName("nope");
        nope.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(good));
        topics.add(nope);
        request.setTopicData(topics);
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            ProduceResponseData response = new ProduceResponseData(raw.call(ApiKeys.PRODUCE, (short) 9, request), (short) 9);
            List<ProduceResponseData.PartitionProduceResponse> partitions = response.responses().find("wire", org.apache.kafka.common.Uuid.ZERO_UUID).partitionResponses();
            assertEquals(Errors.NONE.code(), partitions.get(0).errorCode());
            assertEquals(Errors.CORRUPT_MESSAGE.code(), partitions.get(1).errorCode());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), partitions.get(2).errorCode());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                    response.responses().find("nope", org.apache.kafka.common.Uuid.ZERO_UUID).partitionResponses().get(0).errorCode());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
    void compressedBatchesOfEveryCodecAreStoredAndFetchedBack(String codec) throws IOException {
        Compression compression = switch (codec) {
            case "gzip" -> Compression.gzip().build();
            case "snappy" -> Compression.snappy().build();
            case "lz4" -> Compression.lz4().build();
            default -> Compression.zstd().build();
        };
        String value = (codec + " ").repeat(500);
        ProduceResponseData.PartitionProduceResponse produced = produce("codecs", 0,
                MemoryRecords.withRecords(compression, new SimpleRecord(utf8(codec), utf8(value))));
        assertEquals(Errors.NONE.code(), produced.errorCode());
        FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20);
        fetch.topics().add(new FetchRequestData.FetchTopic().setTopicId(KafkaTopics.topicId("codecs"))
                .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0)
                        .setFetchOffset(produced.baseOffset()).setPartitionMaxBytes(1 << 20))));
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            FetchResponseData response = new FetchResponseData(raw.call(ApiKeys.FETCH, (short) 18, fetch), (short) 18);
            FetchResponseData.PartitionData partition = response.responses().get(0).partitions().get(0);
            assertEquals(Errors.NONE.code(), partition.errorCode());
            Record record = ((MemoryRecords) partition.records()).records().iterator().next();
            assertEquals(produced.baseOffset(), record.offset());
            assertEquals(value, StandardCharsets.UTF_8.decode(record.value()).toString());
        }
    }

    @Test
    void aFetchWaitingOnATopicDeletedMeanwhileIsStillAnsweredAndItsConnectionStaysUsable() throws IOException {
        broker.streams().create(StreamSettings.of("doomed", "doomed/#", 1, LogSettings.defaults()));
        FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(1000).setMinBytes(1).setMaxBytes(1 << 20);
        fetch.topics().add(new FetchRequestData.FetchTopic().setTopicId(KafkaTopics.topicId("doomed"))
                .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0)
                        .setFetchOffset(0).setPartitionMaxBytes(1 << 20))));
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            raw.send(raw.request(ApiKeys.FETCH, (short) 18, fetch));
            // Usually the fetch is waiting by now, and its deadline reads a partition that is gone.
            broker.streams().delete("doomed");
            FetchResponseData response = new FetchResponseData(
                    raw.response(ApiKeys.FETCH.responseHeaderVersion((short) 18), raw.lastCorrelationId()), (short) 18);
            short partitionError = response.responses().isEmpty() ? Errors.NONE.code()
                    : response.responses().get(0).partitions().get(0).errorCode();
            assertTrue(response.errorCode() != Errors.NONE.code() || partitionError != Errors.NONE.code(),
                    "the fetch of a deleted topic is answered with an error: " + response);
            ApiVersionsResponseData versions = new ApiVersionsResponseData(
                    raw.call(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()), (short) 3);
            assertEquals(Errors.NONE.code(), versions.errorCode());
        }
    }

    @Test
    void everyAdvertisedVersionAnswersARequest() throws IOException {
        List<String> failures = new ArrayList<>();
        try (RawKafka raw = new RawKafka(broker.bootstrap())) {
            for (ApiKeys key : ApiVersionsTable.keys()) {
                if (key == ApiKeys.SASL_HANDSHAKE || key == ApiKeys.SASL_AUTHENTICATE) {
                    continue; // change the connection's state; SaslTest covers them
                }
                for (short v = (short) Math.max(ApiVersionsTable.oldest(key), key.oldestVersion());
                     v <= ApiVersionsTable.latest(key); v++) {
                    ApiMessage request = WireRequests.populated(key, v);
                    try {
                        ByteBufferAccessor body = raw.call(key, v, request);
                        AbstractResponse response = AbstractResponse.parseResponse(key, body, v);
                        assertNotNull(response);
                    } catch (IOException | RuntimeException e) {
                        failures.add(key + " v" + v + ": " + e);
                        raw.close();
                        return;
                    }
                }
            }
        }
        assertEquals(List.of(), failures);
    }

    /** Default request data for an API, as {@link ApiMessageType} makes it. */
    static ApiMessage empty(ApiKeys key) {
        return ApiMessageType.fromApiKey(key.id).newRequest();
    }
}
