package io.sluice.server.http;

import io.sluice.broker.Broker;
import io.sluice.broker.routing.Subscription;
import io.sluice.broker.session.Session;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code GET /api/v4/topic-tree}: the topic levels that subscriptions and retained messages use,
 * as a tree. Each node has its level ({@code topic}), its full {@code path}, how many
 * subscriptions end there ({@code subscribers}), whether a retained message is stored there
 * ({@code retained}), its child count ({@code cld_cnt}, as NanoMQ names it) and its
 * {@code children}. At most {@link #MAX_NODES} nodes; beyond that {@code truncated} is true.
 */
public final class TopicTreeEndpoint implements Endpoint {
    static final int MAX_NODES = 20_000;

    private final Broker broker;

    public TopicTreeEndpoint(Broker broker) {
        this.broker = broker;
    }

    /** One level; children sorted by name. */
    private static final class Node {
        final String path;
        final TreeMap<String, Node> children = new TreeMap<>();
        int subscribers;
        boolean retained;
        int retainedBytes;

        Node(String path) {
            this.path = path;
        }
    }

    @Override
    public Reply handle(ApiRequest request) {
        Node root = new Node("");
        int[] nodes = {0};
        for (Session session : broker.sessions().sessions()) {
            for (Subscription subscription : session.subscriptions()) {
                Node node = place(root, subscription.filter().raw(), nodes);
                if (node != null) {
                    node.subscribers++;
                }
            }
        }
        broker.router().retained().forEach(System.currentTimeMillis(), message -> {
            Node node = place(root, message.topic(), nodes);
            if (node != null) {
                node.retained = true;
                node.retainedBytes = message.payload().length;
            }
        });
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("truncated", nodes[0] >= MAX_NODES);
        data.put("children", views(root));
        return Reply.data(data);
    }

    /** The node of {@code topic}, made as needed; null once the tree is full. */
    private static Node place(Node root, String topic, int[] nodes) {
        Node node = root;
        for (String level : topic.split("/", -1)) {
            Node child = node.children.get(level);
            if (child == null) {
                if (nodes[0] >= MAX_NODES) {
                    return null;
                }
                nodes[0]++;
                child = new Node(node == root ? level : node.path + "/" + level);
                node.children.put(level, child);
            }
            node = child;
        }
        return node;
    }

    private static List<Object> views(Node node) {
        List<Object> children = new ArrayList<>(node.children.size());
        node.children.forEach((level, child) -> {
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("topic", level);
            view.put("path", child.path);
            view.put("subscribers", child.subscribers);
            view.put("retained", child.retained);
            if (child.retained) {
                view.put("retained_bytes", child.retainedBytes);
            }
            view.put("cld_cnt", child.children.size());
            view.put("children", views(child));
            children.add(view);
        });
        return children;
    }
}
