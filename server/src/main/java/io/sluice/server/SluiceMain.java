package io.sluice.server;

import io.sluice.server.config.ConfigError;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.SluiceConfig;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * {@code bin/sluice [-c FILE]}: loads the configuration ({@code conf/sluice.conf} by default),
 * starts the server in the foreground, and stops it gracefully on SIGTERM or SIGINT. A bad
 * configuration exits with status 2 and one line naming the key and the problem.
 * {@code bin/sluice passwd ...} edits a password file instead (see {@link PasswdCommand}).
 */
public final class SluiceMain {
    static final String DEFAULT_CONFIG = "conf/sluice.conf";

    private SluiceMain() {
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("passwd")) {
            System.exit(PasswdCommand.run(Arrays.copyOfRange(args, 1, args.length), System.in, System.out,
                    System.err));
            return;
        }
        Path file;
        try {
            file = configFile(args);
        } catch (IllegalArgumentException e) {
            System.err.println("sluice: " + e.getMessage());
            System.err.println("usage: sluice [-c FILE]");
            System.err.println(PasswdCommand.USAGE);
            System.exit(64);
            return;
        }
        SluiceConfig config;
        try {
            config = ConfigLoader.load(file);
        } catch (ConfigError e) {
            System.err.println("sluice: bad configuration in " + file + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        // Before the first logger exists: slf4j-simple reads its level once.
        Logging.configure(config.logLevel());
        run(config);
    }

    private static void run(SluiceConfig config) {
        SluiceServer server;
        try {
            server = SluiceServer.start(config);
        } catch (ConfigError e) {
            // Some settings can only be checked while starting (plugins, directories).
            System.err.println("sluice: bad configuration: " + e.getMessage());
            System.exit(2);
            return;
        } catch (RuntimeException e) {
            System.err.println("sluice: cannot start: " + e.getMessage());
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "sluice-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static Path configFile(String[] args) {
        if (args.length == 0) {
            return Path.of(DEFAULT_CONFIG);
        }
        if (args.length == 2 && (args[0].equals("-c") || args[0].equals("--config"))) {
            return Path.of(args[1]);
        }
        throw new IllegalArgumentException("unexpected arguments: " + String.join(" ", args));
    }
}
