package io.sluice.server.testing;

import io.sluice.testing.Eventually;
import io.sluice.server.SluiceMain;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server as users run it: a separate JVM running {@link SluiceMain} on a configuration file,
 * whose output the test can read and which the test can stop with SIGTERM or SIGKILL. Broker
 * state and captured files default to the test's folder, never the working directory.
 */
public final class ServerProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("accepting MQTT on .*:(\\d+) ");
    private static final Pattern KAFKA = Pattern.compile("accepting Kafka clients on .*:(\\d+) ");

    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private volatile int port = -1;
    private volatile int kafkaPort = -1;

    private ServerProcess(Process process) {
        this.process = process;
        Thread drain = new Thread(this::drain, "server-output");
        drain.setDaemon(true);
        drain.start();
    }

    /** Writes {@code dir/sluice.conf} (state and Parquet in {@code dir} unless {@code config} says otherwise) and launches. */
    public static ServerProcess launch(Path dir, String config) throws IOException {
        return launch(dir, config, System.getProperty("java.class.path"));
    }

    /** As {@link #launch(Path, String)}, with the server's class path given explicitly. */
    public static ServerProcess launch(Path dir, String config, String classPath) throws IOException {
        return launch(dir, config, classPath, SluiceMain.class);
    }

    /**
     * As {@link #launch(Path, String, String)}, through another main class that wraps
     * {@link SluiceMain} (such as {@link SlowDiskMain}) with JVM options such as its system properties.
     */
    public static ServerProcess launch(Path dir, String config, String classPath, Class<?> main,
                                       String... jvmOptions) throws IOException {
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, "persistence.dir = \"" + dir.resolve("state") + "\"\n"
                + "parquet.dir = \"" + dir.resolve("parquet") + "\"\n"
                + "listeners.tcp.bind = \"127.0.0.1:0\"\n" + config);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", classPath, main.getName(), "-c", file.toString()));
        return new ServerProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /** As {@link #launch(Path, String, String, Class, String...)} on this class path, and waits until it listens. */
    public static ServerProcess start(Path dir, String config, Class<?> main, String... jvmOptions) throws IOException {
        return awaitListening(launch(dir, config, System.getProperty("java.class.path"), main, jvmOptions));
    }

    /** Launches and waits until the MQTT listener accepts connections. */
    public static ServerProcess start(Path dir, String config) throws IOException {
        return start(dir, config, System.getProperty("java.class.path"));
    }

    /** As {@link #start(Path, String)}, with the server's class path given explicitly. */
    public static ServerProcess start(Path dir, String config, String classPath) throws IOException {
        return awaitListening(launch(dir, config, classPath));
    }

    /** Runs {@code command}, a server started as users start it (an installation's {@code bin/sluice}), and waits until it listens. */
    public static ServerProcess start(ProcessBuilder command) throws IOException {
        return awaitListening(new ServerProcess(command.redirectErrorStream(true).start()));
    }

    private static ServerProcess awaitListening(ServerProcess server) {
        Eventually.await(() -> server.port > 0 || !server.process.isAlive(),
                () -> "the server listens (output: " + server.output + ")");
        if (server.port < 0) {
            throw new IllegalStateException("the server exited before it listened: " + server.output);
        }
        return server;
    }

    private void drain() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                output.add(line);
                Matcher m = LISTENING.matcher(line);
                if (port < 0 && m.find()) {
                    port = Integer.parseInt(m.group(1));
                }
                Matcher kafka = KAFKA.matcher(line);
                if (kafkaPort < 0 && kafka.find()) {
                    kafkaPort = Integer.parseInt(kafka.group(1));
                }
            }
        } catch (IOException e) {
            output.add("(reading the server's output failed: " + e + ")");
        }
    }

    public int port() {
        return port;
    }

    /** The Kafka listener's port, once it listens; -1 before (or without one). */
    public int kafkaPort() {
        return kafkaPort;
    }

    /** The server's process id (the JVM's: bin/sluice execs it). */
    public long pid() {
        return process.pid();
    }

    /** Every line the server printed so far. */
    public List<String> output() {
        return List.copyOf(output);
    }

    /** Waits for the process to exit by itself and returns its status. */
    public int awaitExit() throws InterruptedException {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the server did not exit: " + output);
        }
        return process.exitValue();
    }

    /** SIGTERM, then waits for the graceful stop. */
    public int terminate() throws InterruptedException {
        process.destroy();
        return awaitExit();
    }

    /** SIGKILL: the process ends at once, with no chance to write anything more. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
