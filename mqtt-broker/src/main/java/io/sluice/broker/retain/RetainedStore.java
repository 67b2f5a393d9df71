package io.sluice.broker.retain;

import io.sluice.broker.message.Message;
import io.sluice.broker.topic.TopicFilter;
import io.sluice.broker.topic.TopicName;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The retained message of every topic, in a trie with one level per node, so that a
 * subscription finds its retained messages by walking only the branches its filter can match:
 * "a/+/c" touches the children of "a", never the rest of the store. This is what keeps a
 * wildcard subscribe fast with hundreds of thousands of retained topics.
 *
 * <p>Threading: reads take no lock (concurrent child maps, volatile message slots); writes are
 * serialised so that empty branches can be pruned safely.
 */
public final class RetainedStore {
    private final Node root = new Node(null, "");
    private final AtomicInteger count = new AtomicInteger();
    private final Object writeLock = new Object();
    private final RetainedJournal journal;

    public RetainedStore() {
        this(RetainedJournal.NONE);
    }

    public RetainedStore(RetainedJournal journal) {
        this.journal = journal;
    }

    /** Stores {@code message} as its topic's retained message; an empty payload deletes it (MQTT 5 §3.3.1.3). */
    public void put(Message message) {
        synchronized (writeLock) {
            if (message.payload().length == 0) {
                remove(message.topic());
                return;
            }
            Message retained = message.withRetain(true);
            store(retained);
            journal.stored(retained);
        }
    }

    /** Puts back a message recovered after a restart; it is already in the journal. */
    public void restore(Message message) {
        synchronized (writeLock) {
            store(message.withRetain(true));
        }
    }

    private void store(Message message) {
        Node node = root;
        for (String level : TopicName.levels(message.topic())) {
            Node parent = node;
            node = parent.children.computeIfAbsent(level, l -> new Node(parent, l));
        }
        if (node.message == null) {
            count.incrementAndGet();
        }
        node.message = message;
    }

    private void remove(String topic) {
        Node node = root;
        for (String level : TopicName.levels(topic)) {
            node = node.children.get(level);
            if (node == null) {
                return;
            }
        }
        if (node.message != null) {
            node.message = null;
            count.decrementAndGet();
            journal.removed(topic);
        }
        prune(node);
    }

    private void prune(Node node) {
        while (node != root && node.message == null && node.children.isEmpty()) {
            node.parent.children.remove(node.level, node);
            node = node.parent;
        }
    }

    /** The retained message of exactly {@code topic}, or null. */
    public Message get(String topic) {
        Node node = root;
        for (String level : TopicName.levels(topic)) {
            node = node.children.get(level);
            if (node == null) {
                return null;
            }
        }
        return node.message;
    }

    /** Hands every unexpired retained message matching {@code filter} to {@code sink}. */
    public void match(TopicFilter filter, long nowMillis, Consumer<Message> sink) {
        walk(root, filter.levels(), 0, nowMillis, sink);
    }

    private void walk(Node node, String[] levels, int depth, long now, Consumer<Message> sink) {
        if (depth == levels.length) {
            emit(node, now, sink);
            return;
        }
        String level = levels[depth];
        if (level.equals("#")) {
            if (depth > 0) {
                emit(node, now, sink); // "a/#" matches "a" itself
            }
            node.children.forEach((name, child) -> {
                if (depth > 0 || !isReserved(name)) {
                    emitSubtree(child, now, sink);
                }
            });
        } else if (level.equals("+")) {
            node.children.forEach((name, child) -> {
                if (depth > 0 || !isReserved(name)) {
                    walk(child, levels, depth + 1, now, sink);
                }
            });
        } else {
            Node child = node.children.get(level);
            if (child != null) {
                walk(child, levels, depth + 1, now, sink);
            }
        }
    }

    private void emitSubtree(Node node, long now, Consumer<Message> sink) {
        emit(node, now, sink);
        node.children.forEach((name, child) -> emitSubtree(child, now, sink));
    }

    private void emit(Node node, long now, Consumer<Message> sink) {
        Message message = node.message;
        if (message == null) {
            return;
        }
        if (message.isExpired(now)) {
            expire(node, message);
            return;
        }
        sink.accept(message);
    }

    private void expire(Node node, Message message) {
        synchronized (writeLock) {
            if (node.message == message) {
                node.message = null;
                count.decrementAndGet();
                journal.removed(message.topic());
                prune(node);
            }
        }
    }

    /** Removes every retained message whose expiry has passed; returns how many remain. */
    public int purgeExpired(long nowMillis) {
        forEach(nowMillis, message -> { });
        return count.get();
    }

    /** Visits every retained message; expired ones are removed on the way. */
    public void forEach(long nowMillis, Consumer<Message> sink) {
        root.children.forEach((name, child) -> emitSubtree(child, nowMillis, sink));
    }

    /** How many topics hold a retained message. */
    public int size() {
        return count.get();
    }

    private static boolean isReserved(String level) {
        return !level.isEmpty() && level.charAt(0) == '$';
    }

    private static final class Node {
        final ConcurrentHashMap<String, Node> children = new ConcurrentHashMap<>(4);
        final Node parent;
        final String level;
        volatile Message message;

        Node(Node parent, String level) {
            this.parent = parent;
            this.level = level;
        }
    }
}
