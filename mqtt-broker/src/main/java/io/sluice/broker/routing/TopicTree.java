package io.sluice.broker.routing;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * A trie of topic filters, one level per node, that finds every value whose filter matches a
 * topic name. The cost of a match grows with the topic's depth and the number of matching
 * filters, never with the number of unrelated ones.
 *
 * <p>Threading: {@link #match} runs on every event loop at once and takes no lock: children
 * live in concurrent maps and each node's values are an immutable array swapped in whole.
 * Changes ({@link #put}, {@link #remove}) are serialised by one lock; they are rare next to
 * matches, and copying a node's array keeps the readers lock-free.
 *
 * @param <V> the value stored per filter; values with equal keys replace each other
 */
public final class TopicTree<V> {
    /** Receives each value that matches; implementations are reused across matches. */
    @FunctionalInterface
    public interface Visitor<V> {
        void visit(V value);
    }

    private final Function<V, Object> keyOf;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Node root = new Node(null, "");

    public TopicTree(Function<V, Object> keyOf) {
        this.keyOf = keyOf;
    }

    /** Adds {@code value} under the filter, replacing a value with the same key; returns the replaced one. */
    public V put(String[] filterLevels, V value) {
        Object key = keyOf.apply(value);
        writeLock.lock();
        try {
            Node node = root;
            for (String level : filterLevels) {
                Node parent = node;
                node = parent.children.computeIfAbsent(level, l -> new Node(parent, l));
            }
            return node.put(key, value, keyOf);
        } finally {
            writeLock.unlock();
        }
    }

    /** Removes the value with {@code key} under the filter; returns it, or null if there was none. */
    public V remove(String[] filterLevels, Object key) {
        writeLock.lock();
        try {
            Node node = root;
            for (String level : filterLevels) {
                node = node.children.get(level);
                if (node == null) {
                    return null;
                }
            }
            V removed = node.remove(key, keyOf);
            prune(node);
            return removed;
        } finally {
            writeLock.unlock();
        }
    }

    /** The value stored under the filter with {@code key}, or null. */
    public V get(String[] filterLevels, Object key) {
        Node node = root;
        for (String level : filterLevels) {
            node = node.children.get(level);
            if (node == null) {
                return null;
            }
        }
        return node.find(key, keyOf);
    }

    /** Calls {@code visitor} for each value whose filter matches {@code topicLevels}. */
    public void match(String[] topicLevels, boolean reservedTopic, Visitor<V> visitor) {
        walk(root, topicLevels, 0, reservedTopic, visitor);
    }

    private void walk(Node node, String[] levels, int depth, boolean reservedTopic, Visitor<V> visitor) {
        if (node.children.isEmpty() && depth < levels.length) {
            return;
        }
        // MQTT 4.7.2: a wildcard in the first level never matches a topic starting with '$'.
        boolean wildcardsAllowed = depth > 0 || !reservedTopic;
        if (wildcardsAllowed) {
            Node multi = node.children.get("#");
            if (multi != null) {
                multi.visitAll(visitor); // "a/#" also matches "a", so this applies at the end too
            }
        }
        if (depth == levels.length) {
            node.visitAll(visitor);
            return;
        }
        if (wildcardsAllowed) {
            Node single = node.children.get("+");
            if (single != null) {
                walk(single, levels, depth + 1, reservedTopic, visitor);
            }
        }
        Node exact = node.children.get(levels[depth]);
        if (exact != null) {
            walk(exact, levels, depth + 1, reservedTopic, visitor);
        }
    }

    /** Removes nodes that hold neither values nor children, from a leaf up; caller holds the lock. */
    private void prune(Node node) {
        while (node != root && node.values.length == 0 && node.children.isEmpty()) {
            Node parent = node.parent;
            parent.children.remove(node.level, node);
            node = parent;
        }
    }

    /** Whether the tree holds no value at all. */
    public boolean isEmpty() {
        return root.children.isEmpty() && root.values.length == 0;
    }

    private final class Node {
        final ConcurrentHashMap<String, Node> children = new ConcurrentHashMap<>(4);
        final String level;
        final Node parent;
        volatile Object[] values = new Object[0];

        Node(Node parent, String level) {
            this.parent = parent;
            this.level = level;
        }

        @SuppressWarnings("unchecked")
        V put(Object key, V value, Function<V, Object> keyOf) {
            Object[] current = values;
            for (int i = 0; i < current.length; i++) {
                if (keyOf.apply((V) current[i]).equals(key)) {
                    Object[] copy = current.clone();
                    copy[i] = value;
                    values = copy;
                    return (V) current[i];
                }
            }
            Object[] grown = Arrays.copyOf(current, current.length + 1);
            grown[current.length] = value;
            values = grown;
            return null;
        }

        @SuppressWarnings("unchecked")
        V remove(Object key, Function<V, Object> keyOf) {
            Object[] current = values;
            for (int i = 0; i < current.length; i++) {
                if (keyOf.apply((V) current[i]).equals(key)) {
                    Object[] shrunk = new Object[current.length - 1];
                    System.arraycopy(current, 0, shrunk, 0, i);
                    System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                    values = shrunk;
                    return (V) current[i];
                }
            }
            return null;
        }

        @SuppressWarnings("unchecked")
        V find(Object key, Function<V, Object> keyOf) {
            for (Object value : values) {
                if (keyOf.apply((V) value).equals(key)) {
                    return (V) value;
                }
            }
            return null;
        }

        @SuppressWarnings("unchecked")
        void visitAll(Visitor<V> visitor) {
            for (Object value : values) {
                visitor.visit((V) value);
            }
        }
    }
}
