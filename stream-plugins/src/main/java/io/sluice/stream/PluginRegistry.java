package io.sluice.stream;

import io.sluice.stream.raw.RawPlugin;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The stream plugins an exchange may name by {@code streamType}: the built-ins, those registered
 * in code, and those a class loader offers through {@link ServiceLoader}. Ids are unique: a
 * duplicate, a reserved built-in id, or a plugin that fails to load is an error naming the id and
 * where the plugin came from ("built-in", a jar path, a class name).
 *
 * <p>Filled at start-up, then read; all methods are thread-safe.
 */
public final class PluginRegistry {

    /** Where the built-in plugins come from, in messages. */
    public static final String BUILT_IN = "built-in";

    /** Ids of the built-in plugins; no other source may register them. */
    private static final Map<Integer, String> RESERVED = Map.of(RawPlugin.ID, "raw", 1, "spi");

    private final Map<Integer, Entry> byId = new TreeMap<>();

    private record Entry(StreamPlugin plugin, String source) {
    }

    private PluginRegistry() {
    }

    /** A registry holding the built-in plugins. */
    public static PluginRegistry withBuiltIns() {
        PluginRegistry registry = new PluginRegistry();
        registry.add(new RawPlugin(), BUILT_IN);
        return registry;
    }

    /**
     * Adds a plugin.
     *
     * @param source where it comes from, for messages (a jar path, a class name)
     * @throws IllegalArgumentException for a negative, reserved or already registered id, or a blank name
     */
    public void register(StreamPlugin plugin, String source) {
        int id = plugin.id();
        if (RESERVED.containsKey(id)) {
            throw new IllegalArgumentException("stream plugin id " + id + " of '" + plugin.name() + "' from " + source
                    + " is reserved for the built-in " + RESERVED.get(id) + " plugin");
        }
        add(plugin, source);
    }

    /**
     * Registers every {@link StreamPlugin} the loader itself lists in
     * {@code META-INF/services/io.sluice.stream.StreamPlugin}. Providers that a parent loader
     * defines are skipped, so a jar's loader yields only the jar's plugins.
     *
     * @return the plugins added
     * @throws IllegalArgumentException for an id {@link #register} refuses
     * @throws IllegalStateException    when a provider cannot be loaded or instantiated
     */
    public List<StreamPlugin> loadServices(ClassLoader loader, String source) {
        List<StreamPlugin> added = new ArrayList<>();
        try {
            for (ServiceLoader.Provider<StreamPlugin> provider : ServiceLoader.load(StreamPlugin.class, loader)
                    .stream().collect(Collectors.toList())) {
                if (provider.type().getClassLoader() != loader) {
                    continue;
                }
                StreamPlugin plugin = instantiate(provider, source);
                register(plugin, source + " (" + provider.type().getName() + ")");
                added.add(plugin);
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalStateException("cannot load stream plugins from " + source + ": " + e.getMessage(), e);
        }
        return added;
    }

    private static StreamPlugin instantiate(ServiceLoader.Provider<StreamPlugin> provider, String source) {
        try {
            return provider.get();
        } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
            throw new IllegalStateException("cannot instantiate stream plugin " + provider.type().getName()
                    + " from " + source + ": " + e, e);
        }
    }

    /**
     * The plugin with this id.
     *
     * @throws IllegalArgumentException naming the id and the known ones when there is none;
     *                                  the message starts with {@code streamType: }
     */
    public synchronized StreamPlugin plugin(int id) {
        Entry entry = byId.get(id);
        if (entry != null) {
            return entry.plugin;
        }
        if (RESERVED.containsKey(id)) {
            throw new IllegalArgumentException("streamType: " + id + " (" + RESERVED.get(id)
                    + ") is reserved for a built-in plugin that this build does not include; known: " + describeKnown());
        }
        throw new IllegalArgumentException("streamType: unknown stream plugin id " + id + "; known: " + describeKnown());
    }

    /** Where the plugin with this id came from, or null. */
    public synchronized String source(int id) {
        Entry entry = byId.get(id);
        return entry == null ? null : entry.source;
    }

    /** Every registered plugin, by id. */
    public synchronized List<StreamPlugin> plugins() {
        List<StreamPlugin> plugins = new ArrayList<>();
        byId.values().forEach(e -> plugins.add(e.plugin));
        return Collections.unmodifiableList(plugins);
    }

    private synchronized void add(StreamPlugin plugin, String source) {
        int id = plugin.id();
        if (id < 0) {
            throw new IllegalArgumentException("stream plugin '" + plugin.name() + "' from " + source + " has negative id " + id);
        }
        if (plugin.name() == null || plugin.name().isBlank()) {
            throw new IllegalArgumentException("stream plugin id " + id + " from " + source + " has no name");
        }
        Entry existing = byId.get(id);
        if (existing != null) {
            throw new IllegalArgumentException("duplicate stream plugin id " + id + ": '" + plugin.name() + "' from " + source
                    + " and '" + existing.plugin.name() + "' from " + existing.source);
        }
        byId.put(id, new Entry(plugin, source));
    }

    private String describeKnown() {
        return byId.values().stream().map(e -> e.plugin.id() + " (" + e.plugin.name() + ")").collect(Collectors.joining(", "));
    }
}
