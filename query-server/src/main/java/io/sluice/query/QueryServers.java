package io.sluice.query;

import io.sluice.exchange.Exchange;
import io.sluice.settings.InvalidSettingException;
import java.net.BindException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The query servers of a broker, one per exchange: opened together (two exchanges on one URL, or a
 * URL that cannot be bound, fails start-up naming the exchange and the URL, and closes what was
 * opened), closed together. Close them before the exchanges, so no query runs against a closing
 * exchange.
 */
public final class QueryServers implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(QueryServers.class);

    private final Map<String, QueryServer> byExchange;

    private QueryServers(Map<String, QueryServer> byExchange) {
        this.byExchange = byExchange;
    }

    /**
     * Opens one query server per exchange, in the map's iteration order (pass a LinkedHashMap in
     * configuration order).
     *
     * @throws InvalidSettingException for {@code exchange_url} when two exchanges name the same URL
     * @throws BindException            naming the exchange and the URL when one cannot be bound; nothing stays open
     */
    public static QueryServers open(Map<Exchange, QueryServerSettings> settings) throws BindException {
        checkDistinctUrls(settings);
        Map<String, QueryServer> opened = new LinkedHashMap<>();
        try {
            for (Map.Entry<Exchange, QueryServerSettings> each : settings.entrySet()) {
                opened.put(each.getKey().name(), QueryServer.open(each.getKey(), each.getValue()));
            }
        } catch (BindException | RuntimeException e) {
            opened.values().forEach(QueryServer::close);
            throw e;
        }
        return new QueryServers(opened);
    }

    private static void checkDistinctUrls(Map<Exchange, QueryServerSettings> settings) {
        Map<String, String> seen = new HashMap<>();
        for (Map.Entry<Exchange, QueryServerSettings> each : settings.entrySet()) {
            QueryServerSettings server = each.getValue();
            if (server.ephemeralPort()) {
                continue;
            }
            String other = seen.putIfAbsent(server.url().toLowerCase(Locale.ROOT), each.getKey().name());
            if (other != null) {
                throw new InvalidSettingException("exchange_url", "exchanges " + other + " and " + each.getKey().name()
                        + " both use " + server.url() + "; each exchange needs a URL of its own");
            }
        }
    }

    /** The server of the exchange of that name, or null. */
    public QueryServer get(String exchange) {
        return byExchange.get(exchange);
    }

    /** Every server, in the order opened. */
    public List<QueryServer> all() {
        return List.copyOf(byExchange.values());
    }

    /** Stops every server (replies in progress end with {@code ERR UNAVAILABLE}) and unbinds them. */
    @Override
    public void close() {
        List<QueryServer> servers = new ArrayList<>(byExchange.values());
        for (QueryServer server : servers) {
            try {
                server.close();
            } catch (RuntimeException e) {
                LOG.error("query server of exchange {}: failed to close", server.exchange().name(), e);
            }
        }
    }
}
