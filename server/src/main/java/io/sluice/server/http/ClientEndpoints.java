package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.broker.Broker;
import io.sluice.broker.session.ClientInfo;
import io.sluice.broker.session.Session;
import io.sluice.broker.session.SessionLink;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The clients: {@code GET /api/v4/clients} (paged; {@code like_clientid}, {@code like_username} and
 * {@code like_ip_address} keep those whose field contains the text, case-insensitively),
 * {@code GET /api/v4/clients/{clientid}}, {@code GET /api/v4/clients/username/{username}} (NanoMQ's: the
 * clients of that user) and {@code DELETE /api/v4/clients/{clientid}}, the kick:
 * the connection is closed, MQTT 5 clients first get DISCONNECT 0x98 (administrative action).
 * Sessions kept for offline clients are listed too, with {@code conn_state = disconnected}.
 */
public final class ClientEndpoints {
    private final Broker broker;

    public ClientEndpoints(Broker broker) {
        this.broker = broker;
    }

    /** {@code GET /api/v4/clients}. */
    public Reply list(ApiRequest request) throws ApiException {
        Paging paging = Paging.of(request);
        String clientId = lower(request.query("like_clientid"));
        String username = lower(request.query("like_username"));
        String address = lower(request.query("like_ip_address"));
        List<Session> found = new ArrayList<>();
        for (Session session : broker.sessions().sessions()) {
            SessionLink link = session.link();
            ClientInfo info = link == null ? null : link.info();
            if (contains(session.clientId(), clientId) && contains(info == null ? null : info.username(), username)
                    && contains(info == null ? null : info.address(), address)) {
                found.add(session);
            }
        }
        found.sort(Comparator.comparing(Session::clientId));
        return paging.reply(found, ClientEndpoints::view);
    }

    /** {@code GET /api/v4/clients/{clientid}}: a list of one, as NanoMQ answers. */
    public Reply get(ApiRequest request) throws ApiException {
        return Reply.data(List.of(view(session(request))));
    }

    /** {@code GET /api/v4/clients/username/{username}}: the connected clients of that user, by client id. */
    public Reply ofUser(ApiRequest request) {
        String username = request.pathParam("username");
        List<Session> found = new ArrayList<>();
        for (Session session : broker.sessions().sessions()) {
            SessionLink link = session.link();
            ClientInfo info = link == null ? null : link.info();
            if (info != null && username.equals(info.username())) {
                found.add(session);
            }
        }
        found.sort(Comparator.comparing(Session::clientId));
        return Reply.data(found.stream().map(ClientEndpoints::view).toList());
    }

    /** {@code DELETE /api/v4/clients/{clientid}}: kicks a connected client. */
    public Reply kick(ApiRequest request) throws ApiException {
        Session session = session(request);
        SessionLink link = session.link();
        if (link == null) {
            throw offline(session.clientId());
        }
        link.kick();
        return Reply.ok();
    }

    private Session session(ApiRequest request) throws ApiException {
        String clientId = request.pathParam("clientid");
        Session session = broker.sessions().get(clientId);
        if (session == null) {
            throw new ApiException(HttpResponseStatus.NOT_FOUND, ApiCode.CLIENT_IS_OFFLINE,
                    "no client '" + ApiRequest.clip(clientId) + "'");
        }
        return session;
    }

    private static ApiException offline(String clientId) {
        return new ApiException(HttpResponseStatus.NOT_FOUND, ApiCode.CLIENT_IS_OFFLINE,
                "client '" + ApiRequest.clip(clientId) + "' is not connected");
    }

    /** One client in NanoMQ's field names, plus Sluice's session figures. */
    static Map<String, Object> view(Session session) {
        SessionLink link = session.link();
        ClientInfo info = link == null ? null : link.info();
        Map<String, Object> client = new LinkedHashMap<>();
        client.put("client_id", session.clientId());
        client.put("username", info == null ? null : info.username());
        client.put("conn_state", info == null ? "disconnected" : "connected");
        client.put("ip_address", info == null ? null : info.address());
        client.put("proto_name", "MQTT");
        client.put("proto_ver", info == null ? null : info.protocolVersion());
        client.put("keepalive", info == null ? null : info.keepAliveSeconds());
        client.put("clean_start", info == null ? null : info.cleanStart());
        client.put("connected_at", info == null ? null : Instant.ofEpochMilli(info.connectedAtMillis()).toString());
        client.put("expiry_interval", session.expiryIntervalSeconds());
        client.put("subscriptions_cnt", session.subscriptionCount());
        client.put("mqueue_len", session.queuedMessages());
        client.put("inflight_cnt", session.inflightMessages());
        client.put("mqueue_dropped", session.droppedMessages());
        return client;
    }

    private static String lower(String text) {
        return text == null || text.isEmpty() ? null : text.toLowerCase(Locale.ROOT);
    }

    private static boolean contains(String value, String wanted) {
        return wanted == null || (value != null && value.toLowerCase(Locale.ROOT).contains(wanted));
    }
}
