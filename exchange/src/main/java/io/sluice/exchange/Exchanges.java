package io.sluice.exchange;

import io.sluice.settings.InvalidSettingException;
import io.sluice.stream.PluginRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All exchanges of a server, by name: opened together (a duplicate name or any failure closes
 * what was opened and fails start-up), listed for metrics, closed together.
 */
public final class Exchanges implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Exchanges.class);

    private final Map<String, Exchange> byName;

    private Exchanges(Map<String, Exchange> byName) {
        this.byName = byName;
    }

    /**
     * Opens every exchange, in order.
     *
     * @throws InvalidSettingException for a duplicate name (key {@code name}) or a bad setting
     *                                  of one exchange (see {@link Exchange#open}); nothing stays open
     */
    public static Exchanges open(List<ExchangeSettings> settings, PluginRegistry plugins) throws IOException {
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < settings.size(); i++) {
            Integer first = seen.putIfAbsent(settings.get(i).name(), i);
            if (first != null) {
                throw new InvalidSettingException("name", "duplicate exchange name '" + settings.get(i).name()
                        + "' (exchanges " + first + " and " + i + " in order)");
            }
        }
        Map<String, Exchange> opened = new LinkedHashMap<>();
        try {
            for (ExchangeSettings each : settings) {
                opened.put(each.name(), Exchange.open(each, plugins));
            }
        } catch (IOException | RuntimeException e) {
            closeAll(opened.values(), e);
            throw e;
        }
        return new Exchanges(opened);
    }

    /**
     * Takes over exchanges the caller opened one by one (to report which one failed), refusing a
     * duplicate name; on failure it closes them all.
     */
    public static Exchanges of(List<Exchange> exchanges) {
        Map<String, Exchange> byName = new LinkedHashMap<>();
        for (Exchange exchange : exchanges) {
            if (byName.putIfAbsent(exchange.name(), exchange) != null) {
                IllegalArgumentException e = new InvalidSettingException("name", "duplicate exchange name '"
                        + exchange.name() + "'");
                closeAll(exchanges, e);
                throw e;
            }
        }
        return new Exchanges(byName);
    }

    /** The exchange of that name, or null. */
    public Exchange get(String name) {
        return byName.get(name);
    }

    /** Every exchange, in configuration order. */
    public List<Exchange> all() {
        return List.copyOf(byName.values());
    }

    /** Every exchange's status, in configuration order. */
    public List<ExchangeStatus> statuses() {
        List<ExchangeStatus> statuses = new ArrayList<>(byName.size());
        for (Exchange exchange : byName.values()) {
            statuses.add(exchange.status());
        }
        return statuses;
    }

    /** Closes every exchange (each writes everything it holds); the first failure is thrown after all were tried. */
    @Override
    public void close() throws IOException {
        IOException failure = closeAll(byName.values(), null);
        if (failure != null) {
            throw failure;
        }
    }

    private static IOException closeAll(Collection<Exchange> exchanges, Exception cause) {
        IOException failure = null;
        for (Exchange exchange : exchanges) {
            try {
                exchange.close();
            } catch (IOException | RuntimeException e) {
                LOG.error("exchange {}: failed to close", exchange.name(), e);
                if (cause != null) {
                    cause.addSuppressed(e);
                } else if (failure == null) {
                    failure = e instanceof IOException io ? io : new IOException(e);
                }
            }
        }
        return failure;
    }
}
