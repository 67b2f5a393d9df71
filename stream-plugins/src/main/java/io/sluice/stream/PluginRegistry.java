package io.sluice.stream;

import io.sluice.settings.InvalidSettingException;
import io.sluice.stream.raw.RawPlugin;
import io.sluice.stream.spi.SpiPlugin;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream plugins an exchange may name by {@code streamType}: the built-ins, those registered
 * in code, those a class loader offers through {@link ServiceLoader}, and those of the jars in a
 * plugin directory ({@link #loadDirectory}). Ids are unique: a duplicate, a reserved built-in id,
 * or a plugin that fails to load is an error naming the id and where the plugin came from
 * ("built-in", a jar path, a class name).
 *
 * <p>Filled at start-up, then read; all methods are thread-safe. The class loaders of plugin jars
 * stay open for the life of the process, since their classes load lazily while plugins run.
 */
public final class PluginRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(PluginRegistry.class);

    /** Where the built-in plugins come from, in messages. */
    public static final String BUILT_IN = "built-in";
    /** The ServiceLoader file a plugin jar lists its plugin classes in. */
    public static final String SERVICES_FILE = "META-INF/services/" + StreamPlugin.class.getName();

    /** Ids of the built-in plugins; no other source may register them. */
    private static final Map<Integer, String> RESERVED = Map.of(RawPlugin.ID, RawPlugin.NAME, SpiPlugin.ID, SpiPlugin.NAME);

    private final Map<Integer, Entry> byId = new TreeMap<>();

    private record Entry(StreamPlugin plugin, String source) {
    }

    private PluginRegistry() {
    }

    /** A registry holding the built-in plugins. */
    public static PluginRegistry withBuiltIns() {
        PluginRegistry registry = new PluginRegistry();
        registry.add(new RawPlugin(), BUILT_IN);
        registry.add(new SpiPlugin(), BUILT_IN);
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
                String where = source + " (" + provider.type().getName() + ")";
                register(plugin, where);
                added.add(plugin);
                LOG.info("stream plugin {} ({}) loaded from {}", plugin.id(), plugin.name(), where);
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalStateException("cannot load stream plugins from " + source + ": " + e.getMessage(), e);
        } catch (LinkageError e) {
            // e.g. UnsupportedClassVersionError for a plugin built for a newer Java, which ServiceLoader does not wrap
            throw new IllegalStateException("cannot load stream plugins from " + source + ": " + e, e);
        }
        return added;
    }

    /** A provider's instance, which must answer {@code id()} and {@code name()}; failures name the class and source. */
    private static StreamPlugin instantiate(ServiceLoader.Provider<StreamPlugin> provider, String source) {
        String type = provider.type().getName();
        StreamPlugin plugin;
        try {
            plugin = provider.get();
        } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
            throw new IllegalStateException("cannot instantiate stream plugin " + type + " from " + source
                    + " (its id is unknown: the constructor failed): " + rootCause(e), e);
        }
        try {
            plugin.id();
            plugin.name();
        } catch (RuntimeException | LinkageError e) {
            throw new IllegalStateException("stream plugin " + type + " from " + source + " cannot tell its id or name: " + e, e);
        }
        return plugin;
    }

    /** The innermost cause, which says what actually went wrong (ServiceLoader wraps it). */
    private static String rootCause(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause == e ? e.toString() : e.getMessage() + ", caused by " + cause;
    }

    /**
     * Loads the plugins of every jar directly in {@code dir} (files named {@code *.jar}, in name
     * order; other files and subdirectories are ignored). Each jar gets its own class loader whose
     * parent is the one that loaded this class: plugins share our API types but not each other's
     * libraries, so two plugins may bundle different versions of one library; a plugin that needs
     * a library therefore bundles it (shaded, relocated). A missing directory loads nothing.
     *
     * <p>This is start-up's single call for {@code plugins.dir}; any failure should stop start-up.
     *
     * @return the plugins added, in load order
     * @throws IllegalArgumentException for an id {@link #register} refuses (duplicate, reserved
     *                                  0 or 1, negative) or a blank name; the message names the
     *                                  jar, the class and the id
     * @throws IllegalStateException    when {@code dir} is not a directory or cannot be listed, a
     *                                  jar cannot be read, lists no plugin of its own in
     *                                  {@value #SERVICES_FILE}, or a listed plugin cannot be loaded
     *                                  or constructed; the message names the jar (and the class)
     */
    public List<StreamPlugin> loadDirectory(Path dir) {
        if (!Files.exists(dir)) {
            LOG.info("no stream plugin directory {}; only the built-in and registered plugins are available", dir.toAbsolutePath());
            return List.of();
        }
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("stream plugin directory " + dir + " is not a directory");
        }
        List<StreamPlugin> added = new ArrayList<>();
        for (Path jar : jars(dir)) {
            added.addAll(loadJar(jar));
        }
        return added;
    }

    private static List<Path> jars(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".jar") && Files.isRegularFile(p)).sorted().toList();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot list stream plugin directory " + dir + ": " + e, e);
        }
    }

    /**
     * Registers a jar's plugins through a class loader of its own. The loader stays open once it
     * yields plugins (their classes keep it reachable); it is closed when the jar fails.
     */
    private List<StreamPlugin> loadJar(Path jar) {
        checkJar(jar);
        URLClassLoader loader = new URLClassLoader("sluice-plugin-" + jar.getFileName(), new URL[] {url(jar)},
                StreamPlugin.class.getClassLoader());
        try {
            List<StreamPlugin> added = loadServices(loader, jar.toString());
            if (added.isEmpty()) {
                throw new IllegalStateException(jar + ": lists no stream plugin class of its own in " + SERVICES_FILE
                        + " (it lists none, or only classes the server already has)");
            }
            return added;
        } catch (RuntimeException e) {
            close(loader, e);
            throw e;
        }
    }

    /** Fails unless the file is a readable jar that lists stream plugins. */
    private static void checkJar(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            if (file.getEntry(SERVICES_FILE) == null) {
                throw new IllegalStateException(jar + ": not a stream plugin jar: it has no " + SERVICES_FILE);
            }
        } catch (IOException e) {
            throw new IllegalStateException(jar + ": cannot read it as a jar file: " + e, e);
        }
    }

    private static URL url(Path jar) {
        try {
            return jar.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalStateException(jar + ": has no URL: " + e, e);
        }
    }

    private static void close(URLClassLoader loader, Throwable failure) {
        try {
            loader.close();
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * The plugin with this id.
     *
     * @throws InvalidSettingException for {@code streamType}, naming the id and the known ones, when
     *                                  there is none
     */
    public synchronized StreamPlugin plugin(int id) {
        Entry entry = byId.get(id);
        if (entry != null) {
            return entry.plugin;
        }
        throw new InvalidSettingException("streamType", "unknown stream plugin id " + id + "; known: " + describeKnown());
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
