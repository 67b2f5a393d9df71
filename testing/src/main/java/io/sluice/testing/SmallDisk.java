package io.sluice.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A small tmpfs mounted for each test of a disk-full test class, and a ballast file that fills it
 * to the last page. Register it with {@code @RegisterExtension}: it mounts before the class's
 * {@code @BeforeEach} methods and unmounts after its {@code @AfterEach} methods, which close what
 * uses the disk. Mounting needs root (and CAP_SYS_ADMIN); elsewhere the test is skipped, saying so.
 */
public final class SmallDisk implements BeforeEachCallback, AfterEachCallback {
    private final String size;
    private Path path;
    private boolean mounted;
    private final List<Path> ballasts = new ArrayList<>();

    private SmallDisk(String size) {
        this.size = size;
    }

    /** A tmpfs of {@code size} (such as {@code 4m}) for each test. */
    public static SmallDisk ofSize(String size) {
        return new SmallDisk(size);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException, InterruptedException {
        path = Files.createTempDirectory("small-disk");
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", path.toString())
                .redirectErrorStream(true).start();
        String output = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        Assumptions.assumeTrue(mounted, "skipped: cannot mount a " + size + " tmpfs at " + path
                + " (needs root and CAP_SYS_ADMIN): " + output);
    }

    /** The mount point. */
    public Path path() {
        return path;
    }

    /**
     * Fills what is left of the disk, to the last page, with a new ballast file. Call it again to
     * take space that the broker freed meanwhile; {@link #free} deletes every ballast file.
     */
    public void fill() throws IOException {
        Path ballast = Files.createTempFile(path, "ballast", "");
        ballasts.add(ballast);
        try (FileChannel channel = FileChannel.open(ballast, StandardOpenOption.WRITE)) {
            for (int chunk = 64 * 1024; chunk >= 512; chunk /= 2) {
                ByteBuffer bytes = ByteBuffer.allocate(chunk);
                try {
                    while (true) {
                        bytes.clear();
                        channel.write(bytes);
                    }
                } catch (IOException full) {
                    // the next, smaller chunk fills what this one could not
                }
            }
        }
    }

    /** Deletes every ballast file: the disk has its room back. */
    public void free() throws IOException {
        for (Path ballast : ballasts) {
            Files.delete(ballast);
        }
        ballasts.clear();
    }

    /** Unmounts, lazily if it stays busy: never left mounted, even after a failed test. */
    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        if (path == null) {
            return;
        }
        if (mounted) {
            try {
                Eventually.await(this::unmounted, "umount " + path);
            } finally {
                if (mounted) {
                    umount("-l");
                }
            }
        }
        Files.deleteIfExists(path);
    }

    /**
     * Tries to unmount; the JVM may still map a closed segment's index until a collection releases
     * it, so a busy mount asks for one before the next try.
     */
    private boolean unmounted() {
        if (umount()) {
            mounted = false;
            return true;
        }
        System.gc();
        return false;
    }

    private boolean umount(String... options) {
        List<String> command = new ArrayList<>(List.of("umount"));
        command.addAll(List.of(options));
        command.add(path.toString());
        try {
            Process umount = new ProcessBuilder(command).redirectErrorStream(true).start();
            umount.getInputStream().readAllBytes();
            return umount.waitFor(30, TimeUnit.SECONDS) && umount.exitValue() == 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
