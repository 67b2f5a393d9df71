package io.sluice.broker.persistence;

import io.sluice.broker.message.Message;
import io.sluice.broker.session.SessionSnapshot;
import io.sluice.broker.session.StoredDelivery;
import io.sluice.storage.StorageAdapter;
import io.sluice.storage.StoredRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads the state shard once at start-up and rebuilds what it holds: the latest value of every
 * key, decoded. The storage layer has already cut a torn or corrupt tail of the log (and logged
 * it); a record that does not decode, or a delivery whose message is missing, is skipped,
 * counted and logged here, so a damaged file costs what is damaged and the broker still starts.
 */
final class StateLoader {
    private static final Logger LOG = LoggerFactory.getLogger(StateLoader.class);
    private static final int CHUNK_RECORDS = 4096;
    private static final int CHUNK_BYTES = 16 << 20;

    /** One persistent session as found on disk. */
    record LoadedSession(SessionSnapshot snapshot, List<StoredDelivery> deliveries, Set<Integer> inboundQos2) {
    }

    /** Everything found, plus what the journal needs to continue. */
    record LoadedState(List<Message> retained, List<LoadedSession> sessions, StateJournal.Seeds seeds,
                       List<StateKey> garbage, long records, int skipped) {
    }

    private final Map<StateKey, byte[]> latest = new HashMap<>();
    private int skipped;

    private StateLoader() {
    }

    static LoadedState load(StorageAdapter storage, String shard) {
        StateLoader loader = new StateLoader();
        long records = loader.scan(storage, shard);
        return loader.rebuild(records);
    }

    /** Keeps the latest value of each key; tombstones remove. */
    private long scan(StorageAdapter storage, String shard) {
        long offset = storage.startOffset(shard);
        long end = storage.endOffset(shard);
        long count = 0;
        while (offset < end) {
            List<StoredRecord> chunk = storage.readByOffset(shard, offset, CHUNK_RECORDS, CHUNK_BYTES);
            if (chunk.isEmpty()) {
                break;
            }
            for (StoredRecord record : chunk) {
                apply(record);
                count++;
            }
            offset = chunk.get(chunk.size() - 1).offset() + 1;
        }
        return count;
    }

    private void apply(StoredRecord record) {
        StateKey key;
        try {
            key = StateKey.parse(record.key());
        } catch (CorruptStateException e) {
            skip("record at offset " + record.offset(), e);
            return;
        }
        if (record.value() == null) {
            latest.remove(key);
        } else {
            latest.put(key, record.value());
        }
    }

    /** The broker reads back every record it wrote, so one that does not is a bug: an ERROR, counted. */
    private void skip(String what, RuntimeException e) {
        skipped++;
        LOG.error("broker state: skipping {}: {}", what, e.getMessage());
    }

    private LoadedState rebuild(long records) {
        Map<Long, Message> messages = new HashMap<>();
        List<Message> retained = new ArrayList<>();
        Map<String, SessionSnapshot> snapshots = new HashMap<>();
        Map<String, TreeMap<Long, StateCodec.DeliveryRecord>> deliveries = new HashMap<>();
        Map<String, Set<Integer>> inbound = new HashMap<>();
        for (Map.Entry<StateKey, byte[]> entry : latest.entrySet()) {
            StateKey key = entry.getKey();
            byte[] value = entry.getValue();
            try {
                switch (key.type()) {
                    case StateKey.MESSAGE -> messages.put(key.number(), StateCodec.message(value));
                    case StateKey.RETAINED -> retained.add(StateCodec.message(value));
                    case StateKey.SESSION -> snapshots.put(key.name(), StateCodec.session(key.name(), value));
                    case StateKey.DELIVERY -> deliveries.computeIfAbsent(key.name(), k -> new TreeMap<>())
                            .put(key.number(), StateCodec.delivery(value));
                    default -> inbound.computeIfAbsent(key.name(), k -> new HashSet<>()).add((int) key.number());
                }
            } catch (CorruptStateException e) {
                skip("record with key " + describe(key), e);
            }
        }
        return assemble(records, messages, retained, snapshots, deliveries, inbound);
    }

    private LoadedState assemble(long records, Map<Long, Message> messages, List<Message> retained,
                                 Map<String, SessionSnapshot> snapshots,
                                 Map<String, TreeMap<Long, StateCodec.DeliveryRecord>> deliveries,
                                 Map<String, Set<Integer>> inbound) {
        StateJournal.Seeds seeds = StateJournal.Seeds.empty();
        Map<Long, StateJournal.MessageRef> refs = seeds.messageRefs();
        List<StateKey> garbage = new ArrayList<>();
        List<LoadedSession> sessions = new ArrayList<>();
        for (SessionSnapshot snapshot : snapshots.values()) {
            String clientId = snapshot.clientId();
            Set<StateKey> keys = seeds.keysOnDisk().computeIfAbsent(clientId, k -> new HashSet<>());
            keys.add(StateKey.session(clientId));
            List<StoredDelivery> restored = new ArrayList<>();
            deliveries.getOrDefault(clientId, new TreeMap<>()).forEach((seq, record) -> {
                StateKey key = StateKey.delivery(clientId, seq);
                Message message = messages.get(record.messageId());
                if (message == null) {
                    skip("delivery " + seq + " of client '" + clientId + "'",
                            new CorruptStateException("its message " + record.messageId() + " is missing"));
                    garbage.add(key);
                    return;
                }
                restored.add(record.resolve(seq, message));
                keys.add(key);
                seeds.deliveryMessages().put(key, record.messageId());
                refs.computeIfAbsent(record.messageId(), id -> new StateJournal.MessageRef(message, 0)).references++;
            });
            Set<Integer> qos2 = inbound.getOrDefault(clientId, Set.of());
            qos2.forEach(packetId -> keys.add(StateKey.qos2(clientId, packetId)));
            sessions.add(new LoadedSession(snapshot, restored, qos2));
        }
        collectOrphans(snapshots.keySet(), deliveries, inbound, garbage);
        long maxMessageId = 0;
        for (Long id : messages.keySet()) {
            maxMessageId = Math.max(maxMessageId, id);
            if (!refs.containsKey(id)) {
                garbage.add(StateKey.message(id)); // no delivery points to it any more
            }
        }
        // in the order they went offline (connected at the stop: last), which max_sessions evicts by
        sessions.sort(Comparator.comparingLong((LoadedSession s) -> offlineSince(s.snapshot()))
                .thenComparing(s -> s.snapshot().clientId()));
        StateJournal.Seeds continued = new StateJournal.Seeds(seeds.keysOnDisk(), seeds.deliveryMessages(), refs,
                maxMessageId + 1);
        return new LoadedState(retained, sessions, continued, garbage, records, skipped);
    }

    /** Deliveries and QoS 2 ids whose session record is gone are garbage. */
    private static void collectOrphans(Set<String> sessions,
                                       Map<String, TreeMap<Long, StateCodec.DeliveryRecord>> deliveries,
                                       Map<String, Set<Integer>> inbound, List<StateKey> garbage) {
        deliveries.forEach((clientId, bySeq) -> {
            if (!sessions.contains(clientId)) {
                bySeq.keySet().forEach(seq -> garbage.add(StateKey.delivery(clientId, seq)));
            }
        });
        inbound.forEach((clientId, ids) -> {
            if (!sessions.contains(clientId)) {
                ids.forEach(id -> garbage.add(StateKey.qos2(clientId, id)));
            }
        });
    }

    private static long offlineSince(SessionSnapshot snapshot) {
        return snapshot.disconnectedAtMillis() == 0 ? Long.MAX_VALUE : snapshot.disconnectedAtMillis();
    }

    private static String describe(StateKey key) {
        return (char) key.type() + "/" + key.name() + (key.number() != 0 ? "/" + key.number() : "");
    }
}
