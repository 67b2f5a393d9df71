package io.sluice.server.http;

import io.sluice.broker.Broker;
import io.sluice.broker.routing.Subscription;
import io.sluice.broker.session.Session;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The subscriptions: {@code GET /api/v4/subscriptions} (paged; {@code clientid} and
 * {@code like_topic} narrow it) and {@code GET /api/v4/subscriptions/{clientid}}.
 */
public final class SubscriptionEndpoints {
    private final Broker broker;

    public SubscriptionEndpoints(Broker broker) {
        this.broker = broker;
    }

    /** One client's subscription. */
    private record Entry(String clientId, Subscription subscription) {
    }

    /** {@code GET /api/v4/subscriptions}. */
    public Reply list(ApiRequest request) throws ApiException {
        Paging paging = Paging.of(request);
        String clientId = request.query("clientid");
        String topic = request.query("like_topic");
        List<Entry> found = new ArrayList<>();
        for (Session session : broker.sessions().sessions()) {
            if (clientId != null && !clientId.equals(session.clientId())) {
                continue;
            }
            for (Subscription subscription : session.subscriptions()) {
                if (topic == null || subscription.filter().raw().contains(topic)) {
                    found.add(new Entry(session.clientId(), subscription));
                }
            }
        }
        found.sort(Comparator.comparing(Entry::clientId).thenComparing(e -> e.subscription().filter().raw()));
        return paging.reply(found, SubscriptionEndpoints::view);
    }

    /** {@code GET /api/v4/subscriptions/{clientid}}: empty for an unknown client, as NanoMQ answers. */
    public Reply ofClient(ApiRequest request) {
        Session session = broker.sessions().get(request.pathParam("clientid"));
        List<Object> data = new ArrayList<>();
        if (session != null) {
            for (Subscription subscription : session.subscriptions()) {
                data.add(view(new Entry(session.clientId(), subscription)));
            }
        }
        return Reply.data(data);
    }

    private static Map<String, Object> view(Entry entry) {
        Subscription s = entry.subscription();
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("clientid", entry.clientId());
        view.put("topic", s.filter().raw());
        view.put("qos", s.qos());
        view.put("no_local", s.noLocal());
        view.put("retain_as_published", s.retainAsPublished());
        view.put("retain_handling", s.retainHandling());
        return view;
    }
}
