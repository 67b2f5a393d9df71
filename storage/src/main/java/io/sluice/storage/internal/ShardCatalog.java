package io.sluice.storage.internal;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.Engine;
import io.sluice.storage.LogSettings;
import io.sluice.storage.ShardSettings;
import io.sluice.storage.StorageException;
import io.sluice.storage.segment.DurableFiles;

/**
 * The durable list of shards: one directory per shard under {@code <dir>/shards/}, holding
 * {@value #SETTINGS_FILE} and, for the segment engine, the shard's log files.
 *
 * <h2>Naming</h2>
 * A shard's directory name is its name with every byte outside {@code [A-Za-z0-9_-]} of its UTF-8
 * form written as {@code %XX} (so {@code sensors/a_0} becomes {@code sensors%2Fa_0}, and no name can
 * be {@code .} or {@code ..}); the real name is read back from the settings file.
 *
 * <h2>Settings file</h2>
 * Java properties: {@code name}, {@code engine} ({@code memory}/{@code segment}) and every key of
 * {@link LogSettings#toMap()}. Written atomically ({@link DurableFiles#writeAtomically}), and it is
 * what makes a shard exist: a directory without it is a creation a crash interrupted, removed at
 * open. Deletion renames the directory to {@code <name>.deleting} first (atomic), so a crash
 * mid-deletion never leaves half a shard that looks alive.
 */
final class ShardCatalog {
    static final String SETTINGS_FILE = "shard.properties";
    static final String DELETING_SUFFIX = ".deleting";
    private static final int MAX_DIRECTORY_NAME = 200;
    private static final Logger LOG = LoggerFactory.getLogger(ShardCatalog.class);

    private final Path root;

    /** One shard found at open. */
    record Entry(String name, ShardSettings settings, Path directory) {
    }

    ShardCatalog(Path root) throws IOException {
        this.root = root;
        Files.createDirectories(root);
    }

    static String directoryName(String shard) {
        if (shard == null || shard.isEmpty()) {
            throw new IllegalArgumentException("shard name must not be empty");
        }
        StringBuilder sb = new StringBuilder();
        for (byte b : shard.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        if (sb.length() > MAX_DIRECTORY_NAME) {
            throw new IllegalArgumentException("shard name '" + shard + "' is too long: its directory name would have "
                    + sb.length() + " characters, the limit is " + MAX_DIRECTORY_NAME);
        }
        return sb.toString();
    }

    Path directory(String shard) {
        return root.resolve(directoryName(shard));
    }

    /** Makes the shard exist durably; returns its directory. */
    Path create(String shard, ShardSettings settings) throws IOException {
        Path dir = directory(shard);
        Files.createDirectories(dir);
        Properties properties = new Properties();
        properties.setProperty("name", shard);
        properties.setProperty("engine", settings.engine().configName());
        settings.log().toMap().forEach(properties::setProperty);
        StringWriter text = new StringWriter();
        properties.store(text, "Sluice shard settings; written by the storage adapter");
        DurableFiles.writeAtomically(dir.resolve(SETTINGS_FILE), ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)));
        DurableFiles.fsyncDirectory(root);
        return dir;
    }

    /** Removes the shard durably, then its files. */
    void delete(String shard) throws IOException {
        Path dir = directory(shard);
        Path doomed = root.resolve(dir.getFileName() + DELETING_SUFFIX);
        Files.move(dir, doomed, StandardCopyOption.ATOMIC_MOVE);
        DurableFiles.fsyncDirectory(root);
        deleteTree(doomed);
    }

    /** Every shard, by name; clears away interrupted creations and deletions. */
    List<Entry> load() throws IOException {
        TreeMap<String, Entry> found = new TreeMap<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
            for (Path dir : dirs) {
                if (!Files.isDirectory(dir)) {
                    continue;
                }
                if (dir.getFileName().toString().endsWith(DELETING_SUFFIX)) {
                    LOG.info("Finishing the deletion of shard directory {}", dir);
                    deleteTree(dir);
                } else if (!Files.exists(dir.resolve(SETTINGS_FILE))) {
                    LOG.warn("Removing shard directory {}: it has no {} (its creation was interrupted)", dir, SETTINGS_FILE);
                    deleteTree(dir);
                } else {
                    Entry entry = read(dir);
                    found.put(entry.name(), entry);
                }
            }
        }
        return new ArrayList<>(found.values());
    }

    private static Entry read(Path dir) throws IOException {
        Path file = dir.resolve(SETTINGS_FILE);
        Properties properties = new Properties();
        properties.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
        String name = properties.getProperty("name");
        String engine = properties.getProperty("engine");
        if (name == null || engine == null) {
            throw new StorageException("shard settings " + file + " lack 'name' or 'engine'");
        }
        LogSettings.Builder log = LogSettings.builder();
        try {
            for (String key : properties.stringPropertyNames()) {
                if (!key.equals("name") && !key.equals("engine")) {
                    log.set(key, properties.getProperty(key));
                }
            }
            return new Entry(name, new ShardSettings(Engine.fromConfig(engine), log.build()), dir);
        } catch (IllegalArgumentException e) {
            throw new StorageException("shard settings " + file + ": " + e.getMessage(), e);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
