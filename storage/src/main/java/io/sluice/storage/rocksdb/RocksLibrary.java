package io.sluice.storage.rocksdb;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.storage.StorageException;

/**
 * Loads RocksDB's native library so that no copy of it outlives the process.
 *
 * <p>RocksJava's own loader copies the 15 MB library from its jar to a new temporary file at every
 * start and deletes it only when the JVM exits normally. After a {@code kill -9}, a crash or a
 * power cut the copy stays, one per start, and on a gateway whose {@code /tmp} is a tmpfs each
 * costs 15 MB of RAM until reboot. Here the copy goes into a private temporary directory that is
 * deleted as soon as the library is loaded: a loaded library stays mapped without its file.
 */
public final class RocksLibrary {
    private static final Logger LOG = LoggerFactory.getLogger(RocksLibrary.class);
    private static boolean loaded;

    private RocksLibrary() {
    }

    /** Loads the library once per process; later calls return at once. */
    public static synchronized void load() {
        if (loaded) {
            return;
        }
        String resource = Environment.getJniLibraryFileName("rocksdb");
        // RocksDB.loadLibrary(paths) looks in each path for this name, "librocksdbjnijni-<platform>.so",
        // which is not the name of the jar's resource
        String name = Environment.getJniLibraryFileName("rocksdbjni");
        Path dir = null;
        try {
            dir = Files.createTempDirectory("sluice-rocksdbjni-");
            extract(resource, dir.resolve(name));
            RocksDB.loadLibrary(List.of(dir.toString()));
            loaded = true;
        } catch (IOException | UnsatisfiedLinkError e) {
            throw new StorageException("cannot load RocksDB's native library " + resource + " (os.arch "
                    + System.getProperty("os.arch") + ", temporary directory " + dir + "): " + e.getMessage(), e);
        } finally {
            deleteQuietly(dir, name);
        }
    }

    private static void extract(String resource, Path target) throws IOException {
        try (InputStream library = RocksDB.class.getClassLoader().getResourceAsStream(resource)) {
            if (library == null) {
                throw new IOException("the rocksdbjni jar has no " + resource + " for this platform");
            }
            Files.copy(library, target);
        }
    }

    /** Removes the copy; a failure here leaves a file behind but must not hide the load's own outcome. */
    private static void deleteQuietly(Path dir, String name) {
        if (dir == null) {
            return;
        }
        try {
            Files.deleteIfExists(dir.resolve(name));
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            LOG.warn("could not delete the copy of RocksDB's native library in {}", dir, e);
        }
    }
}
