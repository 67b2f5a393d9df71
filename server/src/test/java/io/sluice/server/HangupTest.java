package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.testing.Command;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A process started with SIGHUP ignored ({@code nohup}) keeps it ignored: the JVM installs no
 * handler, so registration must say that SIGHUP cannot reload files rather than claim it does.
 */
class HangupTest {

    /** Prints whether SIGHUP could be registered in this process. */
    public static final class Probe {
        public static void main(String[] args) {
            System.out.println("registered=" + Hangup.register(() -> { }));
        }
    }

    @Test
    void underNohupSighupIsReportedAsNotHandled() throws Exception {
        assertEquals("registered=false", probe(true));
        assertEquals("registered=true", probe(false));
    }

    private static String probe(boolean nohup) throws Exception {
        List<String> command = new ArrayList<>();
        if (nohup) {
            command.add(Command.require("nohup", "coreutils"));
        }
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Probe.class.getName()));
        Command.Result result = Command.run(command, "", 60);
        assertEquals(0, result.exitCode(), result.stderr());
        return result.stdout().lines().filter(line -> line.startsWith("registered=")).findFirst().orElse(result.stdout());
    }
}
