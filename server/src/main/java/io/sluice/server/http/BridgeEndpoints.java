package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.bridges.BridgeStatus;
import io.sluice.bridges.Bridges;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v4/bridges} and {@code /api/v4/bridges/{name}}: each bridge's state, remote,
 * backlog (messages and bytes stored and not yet acknowledged by the remote), window, counters
 * and last error. Empty without bridges.
 */
public final class BridgeEndpoints {
    private final Bridges bridges;

    /** @param bridges the bridges, or null when none is configured */
    public BridgeEndpoints(Bridges bridges) {
        this.bridges = bridges;
    }

    public Reply list(ApiRequest request) {
        List<Object> data = new ArrayList<>();
        for (BridgeStatus status : statuses()) {
            data.add(view(status));
        }
        return Reply.data(data);
    }

    public Reply get(ApiRequest request) throws ApiException {
        String name = request.pathParam("name");
        for (BridgeStatus status : statuses()) {
            if (status.name().equals(name)) {
                return Reply.data(view(status));
            }
        }
        throw new ApiException(HttpResponseStatus.NOT_FOUND, ApiCode.REQ_PARAM_ERROR,
                "no bridge '" + ApiRequest.clip(name) + "'");
    }

    private List<BridgeStatus> statuses() {
        return bridges == null ? List.of() : bridges.statuses();
    }

    private static Map<String, Object> view(BridgeStatus status) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("name", status.name());
        view.put("type", status.type());
        view.put("remote", status.remote());
        view.put("state", status.state().label());
        view.put("connected", status.state().isConnected());
        view.put("backlog", status.backlog());
        view.put("backlog_bytes", status.backlogBytes());
        view.put("window", status.window());
        view.put("last_error", status.lastError());
        view.put("counters", status.counters());
        return view;
    }
}
