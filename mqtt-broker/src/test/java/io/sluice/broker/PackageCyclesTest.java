package io.sluice.broker;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps the module's packages free of cycles: reads the main sources, records which package
 * names a type of which other package (by import or fully qualified name), and fails on any
 * package that depends, directly or not, on itself.
 */
class PackageCyclesTest {
    private static final Path SOURCES = Path.of("src/main/java");
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern REFERENCE = Pattern.compile("\\b(io\\.sluice\\.broker(?:\\.[a-z]\\w*)*)\\.[A-Z]");

    @Test
    void noPackageOfTheBrokerDependsOnItself() throws IOException {
        Map<String, Set<String>> graph = packageGraph();
        assertTrue(graph.size() > 5, "found the broker's packages under " + SOURCES.toAbsolutePath());
        assertEquals(List.of(), cycles(graph), "package cycles; the graph is " + graph);
    }

    @Test
    void theCycleFinderFindsACycle() {
        Map<String, Set<String>> graph = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
        assertEquals(List.of(Set.of("a", "b", "c")), cycles(graph));
    }

    /** Each package and the packages of this module it refers to. */
    private static Map<String, Set<String>> packageGraph() throws IOException {
        Map<String, Set<String>> graph = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(file -> addFile(graph, read(file)));
        }
        return graph;
    }

    private static void addFile(Map<String, Set<String>> graph, String source) {
        Matcher declared = PACKAGE.matcher(source);
        if (!declared.find()) {
            return;
        }
        String pkg = declared.group(1);
        Set<String> dependencies = graph.computeIfAbsent(pkg, p -> new TreeSet<>());
        Matcher reference = REFERENCE.matcher(source);
        while (reference.find()) {
            if (!reference.group(1).equals(pkg)) {
                dependencies.add(reference.group(1));
            }
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** The strongly connected components of more than one package (Tarjan's algorithm). */
    static List<Set<String>> cycles(Map<String, Set<String>> graph) {
        Tarjan tarjan = new Tarjan(graph);
        new TreeSet<>(graph.keySet()).forEach(tarjan::visitIfNew);
        return tarjan.cycles;
    }

    private static final class Tarjan {
        private final Map<String, Set<String>> graph;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final List<String> stack = new ArrayList<>();
        private final Set<String> onStack = new HashSet<>();
        private final List<Set<String>> cycles = new ArrayList<>();

        Tarjan(Map<String, Set<String>> graph) {
            this.graph = graph;
        }

        void visitIfNew(String node) {
            if (!index.containsKey(node)) {
                visit(node);
            }
        }

        private void visit(String node) {
            index.put(node, index.size());
            low.put(node, index.get(node));
            stack.add(node);
            onStack.add(node);
            for (String next : graph.getOrDefault(node, Set.of())) {
                if (!index.containsKey(next)) {
                    visit(next);
                    low.put(node, Math.min(low.get(node), low.get(next)));
                } else if (onStack.contains(next)) {
                    low.put(node, Math.min(low.get(node), index.get(next)));
                }
            }
            if (low.get(node).equals(index.get(node))) {
                popComponent(node);
            }
        }

        private void popComponent(String root) {
            Set<String> component = new TreeSet<>();
            String member;
            do {
                member = stack.remove(stack.size() - 1);
                onStack.remove(member);
                component.add(member);
            } while (!member.equals(root));
            if (component.size() > 1) {
                cycles.add(component);
            }
        }
    }
}
