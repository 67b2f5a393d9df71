package io.sluice.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a program (kcat, python3, openssl) with a deadline and returns its output. */
public final class Command {
    /** What a finished program left. */
    public record Result(int exitCode, String stdout, String stderr) {
    }

    private Command() {
    }

    /** The path of {@code program} under /usr/bin or /bin (the Debian packages), failing the test when it is missing. */
    public static String require(String program, String debianPackage) {
        for (String dir : List.of("/usr/bin", "/bin", "/usr/local/bin")) {
            Path path = Path.of(dir, program);
            if (Files.isExecutable(path)) {
                return path.toString();
            }
        }
        fail(program + " is not installed: apt-get install -y " + debianPackage);
        return null;
    }

    /** Runs {@code command} with {@code input} (none if null) on its standard input; fails the test after {@code seconds}. */
    public static Result run(List<String> command, String input, int seconds) throws IOException, InterruptedException {
        return run(command, input == null ? new byte[0] : input.getBytes(StandardCharsets.UTF_8), seconds);
    }

    /** Runs {@code command} with the bytes {@code input} on its standard input; fails the test after {@code seconds}. */
    public static Result run(List<String> command, byte[] input, int seconds) throws IOException, InterruptedException {
        Path out = Files.createTempFile("cmd", ".out");
        Path err = Files.createTempFile("cmd", ".err");
        try {
            Process process = new ProcessBuilder(new ArrayList<>(command)).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).start();
            process.getOutputStream().write(input);
            process.getOutputStream().close();
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
                fail(command + " did not finish within " + seconds + " s; stderr: " + Files.readString(err));
            }
            return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
