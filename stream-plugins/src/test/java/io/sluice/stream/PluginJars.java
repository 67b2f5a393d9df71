package io.sluice.stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Builds plugin jars for tests: compiles small plugin classes with the system Java compiler
 * against our API (so they are on no class path of the test) and packs them with a
 * ServiceLoader file, as a plugin author's build would.
 */
final class PluginJars {

    static final String PACKAGE = "test.plugins";

    private PluginJars() {
    }

    /** Source of a plugin class with this id and name whose constructor runs {@code constructorBody}. */
    static String plugin(String simpleName, int id, String name, String constructorBody) {
        return "package " + PACKAGE + ";\n"
                + "public final class " + simpleName + " implements io.sluice.stream.StreamPlugin {\n"
                + "    public " + simpleName + "() { " + constructorBody + " }\n"
                + "    public int id() { return " + id + "; }\n"
                + "    public String name() { return \"" + name + "\"; }\n"
                + "    public io.sluice.stream.StreamCodec open(io.sluice.stream.PluginSettings settings) {\n"
                + "        return new io.sluice.stream.raw.RawPlugin().open(settings);\n"
                + "    }\n"
                + "}\n";
    }

    /** Compiles {@code sources} (simple class name to source) into {@code classes}. */
    static void compile(Path classes, List<String[]> sources) throws IOException, URISyntaxException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        Path api = Path.of(StreamPlugin.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<JavaFileObject> units = new ArrayList<>();
        for (String[] source : sources) {
            units.add(new SimpleJavaFileObject(java.net.URI.create("string:///" + PACKAGE.replace('.', '/') + "/" + source[0] + ".java"),
                    JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return source[1];
                }
            });
        }
        StringWriter errors = new StringWriter();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
            boolean ok = compiler.getTask(errors, files, null,
                    List.of("-classpath", api.toString(), "-d", classes.toString(), "--release", "17"), null, units).call();
            assertTrue(ok, "test plugins compile: " + errors);
        }
    }

    /** A jar of the named classes of {@code classes}, with {@code services} as its ServiceLoader file (none if null). */
    static Path jar(Path jar, Path classes, List<String> simpleNames, String services) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), new Manifest())) {
            for (String simpleName : simpleNames) {
                String entry = PACKAGE.replace('.', '/') + "/" + simpleName + ".class";
                out.putNextEntry(new JarEntry(entry));
                out.write(Files.readAllBytes(classes.resolve(entry)));
                out.closeEntry();
            }
            if (services != null) {
                out.putNextEntry(new JarEntry(PluginRegistry.SERVICES_FILE));
                out.write(services.getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return jar;
    }

    /** A ServiceLoader file listing these classes of the test package. */
    static String services(String... simpleNames) {
        StringBuilder sb = new StringBuilder("# stream plugins of this jar\n");
        for (String simpleName : simpleNames) {
            sb.append(PACKAGE).append('.').append(simpleName).append('\n');
        }
        return sb.toString();
    }

    /** A file that is not a jar at all, named like one. */
    static Path corrupt(Path jar) throws IOException {
        try (OutputStream out = Files.newOutputStream(jar)) {
            out.write("PK\u0003\u0004 this is not really a zip file".getBytes(StandardCharsets.ISO_8859_1));
        }
        return jar;
    }
}
