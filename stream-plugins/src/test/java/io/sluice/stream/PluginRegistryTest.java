package io.sluice.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.stream.raw.RawPlugin;
import io.sluice.stream.spi.SpiPlugin;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginRegistryTest {

    private static StreamPlugin plugin(int id, String name) {
        return new StreamPlugin() {
            @Override
            public int id() {
                return id;
            }

            @Override
            public String name() {
                return name;
            }

            @Override
            public StreamCodec open(PluginSettings settings) {
                throw new UnsupportedOperationException();
            }
        };
    }

    @Test
    void builtInsHoldRawUnderIdZeroAndSpiUnderIdOne() {
        PluginRegistry registry = PluginRegistry.withBuiltIns();
        assertTrue(registry.plugin(0) instanceof RawPlugin);
        assertEquals(PluginRegistry.BUILT_IN, registry.source(0));
        assertTrue(registry.plugin(1) instanceof SpiPlugin);
        assertEquals(PluginRegistry.BUILT_IN, registry.source(1));
    }

    @Test
    void reservedSpiIdIsRefusedNamingIdAndSource() {
        PluginRegistry registry = PluginRegistry.withBuiltIns();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> registry.register(plugin(1, "fake-spi"), "/opt/plugins/fake.jar"));
        assertTrue(e.getMessage().contains("id 1"), e.getMessage());
        assertTrue(e.getMessage().contains("/opt/plugins/fake.jar"), e.getMessage());
        assertTrue(e.getMessage().contains("reserved"), e.getMessage());
    }

    @Test
    void rawIdCannotBeTakenByAnotherPlugin() {
        PluginRegistry registry = PluginRegistry.withBuiltIns();
        assertThrows(IllegalArgumentException.class, () -> registry.register(plugin(0, "mine"), "code"));
    }

    @Test
    void duplicateIdNamesBothSources() {
        PluginRegistry registry = PluginRegistry.withBuiltIns();
        registry.register(plugin(7, "first"), "a.jar");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> registry.register(plugin(7, "second"), "b.jar"));
        assertTrue(e.getMessage().contains("duplicate stream plugin id 7"), e.getMessage());
        assertTrue(e.getMessage().contains("a.jar") && e.getMessage().contains("b.jar"), e.getMessage());
    }

    @Test
    void unknownStreamTypeNamesTheIdAndTheKnownOnes() {
        PluginRegistry registry = PluginRegistry.withBuiltIns();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> registry.plugin(9));
        assertTrue(e.getMessage().startsWith("streamType: "), e.getMessage());
        assertTrue(e.getMessage().contains("9") && e.getMessage().contains("0 (raw), 1 (spi)"), e.getMessage());
    }

    @Test
    void serviceLoaderFindsPluginsOfTheGivenLoader() {
        PluginRegistry registry = PluginRegistry.withBuiltIns();
        List<StreamPlugin> added = registry.loadServices(getClass().getClassLoader(), "test classpath");
        assertEquals(1, added.size());
        assertSame(added.get(0), registry.plugin(42));
        assertTrue(registry.source(42).contains("EchoPlugin"), registry.source(42));
    }

    @Test
    void childLoaderSkipsProvidersOfItsParentAndReportsBrokenOnes(@TempDir Path dir) throws IOException {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(StreamPlugin.class.getName()), "com.example.DoesNotExist\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            PluginRegistry registry = PluginRegistry.withBuiltIns();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> registry.loadServices(loader, "broken.jar"));
            assertTrue(e.getMessage().contains("broken.jar"), e.getMessage());
        }
        Files.writeString(services.resolve(StreamPlugin.class.getName()), "");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            assertEquals(List.of(), PluginRegistry.withBuiltIns().loadServices(loader, "empty.jar"));
        }
    }
}
