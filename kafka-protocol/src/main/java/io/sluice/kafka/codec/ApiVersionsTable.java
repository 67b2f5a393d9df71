package io.sluice.kafka.codec;

import java.util.EnumMap;
import java.util.Map;

import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs and versions the listener advertises, and only those: a client calls whatever is
 * advertised, so nothing is listed that is not answered (no transactions, no KIP-848 groups, no
 * telemetry, no OffsetForLeaderEpoch, no DescribeTopicPartitions: clients fall back to Metadata).
 *
 * <p>Some minimums are 0 although the versions below kafka-clients' parsers are answered by hand or
 * refused: librdkafka before 2.11 enables gzip, snappy and lz4 only if Produce advertises 0, its
 * balanced consumer only if FindCoordinator, JoinGroup, SyncGroup, Heartbeat and LeaveGroup do, and
 * idempotence only if InitProducerId does. Produce 0-2 and ListOffsets 0 are answered by
 * {@link LegacyRequests}. OffsetCommit and OffsetFetch stop before 10, whose topic ids the
 * clients do not need.
 */
public final class ApiVersionsTable {
    private static final Map<ApiKeys, short[]> ADVERTISED = new EnumMap<>(ApiKeys.class);

    static {
        advertise(ApiKeys.PRODUCE, 0, 13);
        advertise(ApiKeys.FETCH, 4, 18);
        advertise(ApiKeys.LIST_OFFSETS, 0, 11);
        advertise(ApiKeys.METADATA, 0, 13);
        advertise(ApiKeys.OFFSET_COMMIT, 2, 9);
        advertise(ApiKeys.OFFSET_FETCH, 1, 9);
        advertise(ApiKeys.FIND_COORDINATOR, 0, 6);
        advertise(ApiKeys.JOIN_GROUP, 0, 9);
        advertise(ApiKeys.HEARTBEAT, 0, 4);
        advertise(ApiKeys.LEAVE_GROUP, 0, 5);
        advertise(ApiKeys.SYNC_GROUP, 0, 5);
        advertise(ApiKeys.DESCRIBE_GROUPS, 0, 5);
        advertise(ApiKeys.LIST_GROUPS, 0, 5);
        advertise(ApiKeys.SASL_HANDSHAKE, 0, 1);
        advertise(ApiKeys.API_VERSIONS, 0, 4);
        advertise(ApiKeys.CREATE_TOPICS, 2, 7);
        advertise(ApiKeys.DELETE_TOPICS, 1, 6);
        advertise(ApiKeys.INIT_PRODUCER_ID, 0, 5);
        advertise(ApiKeys.DESCRIBE_CONFIGS, 1, 4);
        advertise(ApiKeys.SASL_AUTHENTICATE, 0, 2);
        advertise(ApiKeys.DESCRIBE_CLUSTER, 0, 2);
    }

    private ApiVersionsTable() {
    }

    private static void advertise(ApiKeys key, int min, int max) {
        ADVERTISED.put(key, new short[] {(short) min, (short) max});
    }

    /** Whether {@code version} of {@code key} is advertised. */
    public static boolean advertises(ApiKeys key, short version) {
        short[] range = ADVERTISED.get(key);
        return range != null && version >= range[0] && version <= range[1];
    }

    /** The highest advertised version of {@code key}; -1 if it is not advertised. */
    public static short latest(ApiKeys key) {
        short[] range = ADVERTISED.get(key);
        return range == null ? -1 : range[1];
    }

    /** The lowest advertised version of {@code key}; -1 if it is not advertised. */
    public static short oldest(ApiKeys key) {
        short[] range = ADVERTISED.get(key);
        return range == null ? -1 : range[0];
    }

    /** The table as ApiVersions sends it. */
    public static ApiVersionCollection collection() {
        ApiVersionCollection collection = new ApiVersionCollection();
        ADVERTISED.forEach((key, range) -> collection.add(new ApiVersion()
                .setApiKey(key.id).setMinVersion(range[0]).setMaxVersion(range[1])));
        return collection;
    }

    /** Every advertised API. */
    public static Iterable<ApiKeys> keys() {
        return ADVERTISED.keySet();
    }
}
