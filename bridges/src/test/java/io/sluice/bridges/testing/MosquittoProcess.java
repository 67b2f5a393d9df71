package io.sluice.bridges.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.Eventually;

/**
 * A real Mosquitto broker (the Debian {@code mosquitto} package, 2.0) as a test peer: started as a
 * child process on an ephemeral port with a generated configuration, stopped and restarted on the
 * same port to play an outage. Its output is kept for failure messages.
 */
public final class MosquittoProcess implements AutoCloseable {
    private final Path config;
    private final int port;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private Process process;

    private MosquittoProcess(Path config, int port) {
        this.config = config;
        this.port = port;
    }

    /**
     * Writes {@code dir/mosquitto.conf} (anonymous access, no persistence, the given extra lines) and
     * starts Mosquitto on a free port, waiting until it accepts connections.
     */
    public static MosquittoProcess start(Path dir, String... extraLines) throws IOException {
        MosquittoProcess mosquitto = configure(dir, extraLines);
        mosquitto.restart();
        return mosquitto;
    }

    /** As {@link #start}, without starting: for tests that begin with the remote down. */
    public static MosquittoProcess configure(Path dir, String... extraLines) throws IOException {
        int port = freePort();
        List<String> lines = new ArrayList<>(List.of(
                "listener " + port + " 127.0.0.1",
                "allow_anonymous true",
                "persistence false",
                // Without it Mosquitto's small PUBACKs wait for Nagle's algorithm: 40 ms stalls per window.
                "set_tcp_nodelay true",
                "log_dest stdout",
                "log_type error",
                "log_type warning",
                "log_type notice"));
        lines.addAll(List.of(extraLines));
        Path config = dir.resolve("mosquitto.conf");
        Files.write(config, lines, StandardCharsets.UTF_8);
        return new MosquittoProcess(config, port);
    }

    /** The Mosquitto executable: on the PATH, or where Debian installs it. */
    private static String executable() {
        for (String candidate : List.of("/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return "mosquitto";
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        }
    }

    public int port() {
        return port;
    }

    /** {@code mqtt-tcp://127.0.0.1:<port>}, as a bridge's {@code server}. */
    public String url() {
        return "mqtt-tcp://127.0.0.1:" + port;
    }

    /** Starts (again) on the same port and waits until it accepts connections. */
    public void restart() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("mosquitto is already running on port " + port);
        }
        process = new ProcessBuilder(executable(), "-c", config.toString()).redirectErrorStream(true).start();
        Process started = process;
        Thread drain = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(started.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    output.add(line);
                }
            } catch (IOException e) {
                output.add("(reading mosquitto's output failed: " + e + ")");
            }
        }, "mosquitto-output");
        drain.setDaemon(true);
        drain.start();
        Eventually.await(() -> accepts() || !started.isAlive(), () -> "mosquitto listens on " + port + ": " + output);
        if (!started.isAlive()) {
            throw new IllegalStateException("mosquitto exited: " + output);
        }
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Stops Mosquitto (SIGTERM) and waits for it to exit: an outage. */
    public void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Every line Mosquitto printed so far. */
    public List<String> output() {
        return List.copyOf(output);
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
