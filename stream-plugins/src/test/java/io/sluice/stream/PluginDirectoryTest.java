package io.sluice.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading plugin jars from a directory, and every way that stops start-up. */
class PluginDirectoryTest {

    @TempDir
    static Path classes;

    @TempDir
    Path plugins;

    @BeforeAll
    static void compilePlugins() throws Exception {
        PluginJars.compile(classes, List.of(
                new String[] {"Fifty", PluginJars.plugin("Fifty", 50, "fifty", "")},
                new String[] {"FiftyOne", PluginJars.plugin("FiftyOne", 51, "fifty-one", "")},
                new String[] {"AlsoFifty", PluginJars.plugin("AlsoFifty", 50, "also-fifty", "")},
                new String[] {"Zero", PluginJars.plugin("Zero", 0, "zero", "")},
                new String[] {"One", PluginJars.plugin("One", 1, "one", "")},
                new String[] {"Failing", PluginJars.plugin("Failing", 60, "failing",
                        "if (true) throw new IllegalStateException(\"licence file missing\");")}));
    }

    private Path jar(String file, String... pluginClasses) throws Exception {
        return PluginJars.jar(plugins.resolve(file), classes, List.of(pluginClasses), PluginJars.services(pluginClasses));
    }

    private static String failure(Path dir) {
        RuntimeException e = assertThrows(RuntimeException.class, () -> PluginRegistry.withBuiltIns().loadDirectory(dir));
        assertTrue(e instanceof IllegalArgumentException || e instanceof IllegalStateException, e.toString());
        return e.getMessage();
    }

    private static void assertNames(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), "'" + part + "' in: " + message);
        }
    }

    @Test
    void everyJarOfTheDirectoryIsLoadedThroughItsOwnClassLoader() throws Exception {
        Path fifty = jar("a-fifty.jar", "Fifty");
        Path fiftyOne = jar("b-fifty-one.jar", "FiftyOne");
        Files.writeString(plugins.resolve("README.txt"), "not a jar, ignored", StandardCharsets.UTF_8);
        Files.createDirectory(plugins.resolve("old.jar.d"));

        PluginRegistry registry = PluginRegistry.withBuiltIns();
        List<StreamPlugin> added = registry.loadDirectory(plugins);

        assertEquals(List.of(50, 51), added.stream().map(StreamPlugin::id).toList());
        assertEquals("fifty-one", registry.plugin(51).name());
        assertNames(registry.source(50), fifty.toString(), "test.plugins.Fifty");
        assertNames(registry.source(51), fiftyOne.toString());
        assertNotSame(registry.plugin(50).getClass().getClassLoader(), registry.plugin(51).getClass().getClassLoader());
        assertNotSame(getClass().getClassLoader(), registry.plugin(50).getClass().getClassLoader());
        assertEquals(StreamPlugin.class, registry.plugin(50).getClass().getInterfaces()[0], "plugins share our API types");
        assertTrue(registry.plugin(50).open(PluginSettings.none("ex")) instanceof StreamCodec);
    }

    @Test
    void aMissingDirectoryLoadsNothingAndAFileInsteadOfADirectoryStopsStartUp() throws Exception {
        assertEquals(List.of(), PluginRegistry.withBuiltIns().loadDirectory(plugins.resolve("absent")));
        Path file = Files.writeString(plugins.resolve("plugins"), "");
        assertNames(failure(file), file.toString(), "not a directory");
    }

    @Test
    void aDuplicateIdNamesBothJarsAndTheId() throws Exception {
        Path first = jar("a.jar", "Fifty");
        Path second = jar("b.jar", "AlsoFifty");
        assertNames(failure(plugins), "duplicate stream plugin id 50", first.toString(), second.toString(), "also-fifty");
    }

    @Test
    void theReservedIdsOfRawAndSpiNameTheJarAndTheId() throws Exception {
        Path zero = jar("zero.jar", "Zero");
        assertNames(failure(plugins), zero.toString(), "id 0", "reserved for the built-in raw plugin");
        Files.delete(zero);
        Path one = jar("one.jar", "One");
        assertNames(failure(plugins), one.toString(), "id 1", "reserved for the built-in spi plugin");
    }

    @Test
    void aFailingConstructorNamesTheJarTheClassAndTheCause() throws Exception {
        Path failing = jar("failing.jar", "Failing");
        assertNames(failure(plugins), failing.toString(), "test.plugins.Failing", "licence file missing");
    }

    @Test
    void aCorruptJarNamesTheJar() throws Exception {
        jar("a-fifty.jar", "Fifty");
        Path corrupt = PluginJars.corrupt(plugins.resolve("broken.jar"));
        assertNames(failure(plugins), corrupt.toString(), "cannot read it as a jar file");
    }

    @Test
    void aJarWithoutPluginsOrListingAMissingClassNamesTheJar() throws Exception {
        Path bare = PluginJars.jar(plugins.resolve("library.jar"), classes, List.of("Fifty"), null);
        assertNames(failure(plugins), bare.toString(), "not a stream plugin jar", PluginRegistry.SERVICES_FILE);
        Files.delete(bare);

        Path missing = PluginJars.jar(plugins.resolve("typo.jar"), classes, List.of("Fifty"), PluginJars.services("Fifthy"));
        assertNames(failure(plugins), missing.toString(), "test.plugins.Fifthy");
        Files.delete(missing);

        Path empty = PluginJars.jar(plugins.resolve("empty.jar"), classes, List.of("Fifty"), "# nothing\n");
        assertNames(failure(plugins), empty.toString(), "lists no stream plugin class of its own");
    }

    @Test
    void aPluginBuiltForANewerJavaNamesTheJarAndTheClass(@TempDir Path newer) throws Exception {
        String entry = PluginJars.PACKAGE.replace('.', '/') + "/Fifty.class";
        byte[] bytes = Files.readAllBytes(classes.resolve(entry));
        bytes[6] = 0;
        bytes[7] = (byte) 99;   // class file major version 99: a Java far newer than ours
        Files.createDirectories(newer.resolve(entry).getParent());
        Files.write(newer.resolve(entry), bytes);
        Path jar = PluginJars.jar(plugins.resolve("future.jar"), newer, List.of("Fifty"), PluginJars.services("Fifty"));
        assertNames(failure(plugins), jar.toString(), "test/plugins/Fifty", "class file version 99");
    }
}
