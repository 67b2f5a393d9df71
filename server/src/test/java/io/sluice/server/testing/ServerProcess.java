package io.sluice.server.testing;

import io.sluice.testing.Eventually;
import io.sluice.server.SluiceMain;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private volatile int port = -1;

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
        Path file = dir.resolve("sluice.conf");
        Files.writeString(file, "persistence.dir = \"" + dir.resolve("state") + "\"\n"
                + "parquet.dir = \"" + dir.resolve("parquet") + "\"\n"
                + "listeners.tcp.bind = \"127.0.0.1:0\"\n" + config);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", classPath,
                SluiceMain.class.getName(), "-c", file.toString()).redirectErrorStream(true).start();
        return new ServerProcess(process);
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
            }
        } catch (IOException e) {
            output.add("(reading the server's output failed: " + e + ")");
        }
    }

    public int port() {
        return port;
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
