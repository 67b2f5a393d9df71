package io.sluice.server;

import io.sluice.net.auth.PasswordFile;
import io.sluice.net.auth.ScramCredential;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code sluice passwd} as users run it: a separate process reading the password from standard input. */
class PasswdCommandTest {
    @TempDir
    Path dir;

    private record Result(int status, String output) {
    }

    private static Result process(String stdin, String... args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                SluiceMain.class.getName(), "passwd"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        return new Result(process.exitValue(), output);
    }

    private static Result inProcess(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int status = PasswdCommand.run(args, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), print,
                print);
        return new Result(status, out.toString(StandardCharsets.UTF_8));
    }

    private static boolean verifies(Path file, String user, String password) throws Exception {
        ScramCredential credential = PasswordFile.read(file).get(user);
        return credential != null && credential.verify(password.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theCommandAddsChangesAndRemovesAUserReadingThePasswordFromStandardInput() throws Exception {
        Path file = dir.resolve("passwd");

        Result added = process("first secret\n", file.toString(), "alice");
        assertEquals(0, added.status(), added.output());
        assertTrue(added.output().contains("added user 'alice'"), added.output());
        assertTrue(verifies(file, "alice", "first secret"));
        assertFalse(Files.readString(file).contains("first secret"), "no plain text is kept");

        Result changed = process("second secret\n", "-i", "5000", file.toString(), "alice");
        assertEquals(0, changed.status(), changed.output());
        assertTrue(changed.output().contains("changed the password of user 'alice'"), changed.output());
        assertTrue(verifies(file, "alice", "second secret"));
        assertFalse(verifies(file, "alice", "first secret"));
        assertEquals(5000, PasswordFile.read(file).get("alice").iterations());

        Result removed = process("", "-d", file.toString(), "alice");
        assertEquals(0, removed.status(), removed.output());
        assertTrue(PasswordFile.read(file).isEmpty());
    }

    @Test
    void mistakesChangeNothingAndSayWhy() throws Exception {
        Path file = dir.resolve("passwd");
        assertEquals(0, inProcess("pw\n", file.toString(), "bob").status());
        String before = Files.readString(file);

        Result empty = inProcess("", file.toString(), "carol");
        assertEquals(1, empty.status());
        assertTrue(empty.output().contains("empty password"), empty.output());

        Result badName = inProcess("pw\n", file.toString(), "car:ol");
        assertEquals(64, badName.status());
        assertTrue(badName.output().contains("usage"), badName.output());

        Result unknown = inProcess("", "-d", file.toString(), "nobody");
        assertEquals(1, unknown.status());

        Result weak = inProcess("pw\n", "-i", "10", file.toString(), "dave");
        assertEquals(1, weak.status());
        assertTrue(weak.output().contains("iterations"), weak.output());
        assertEquals(before, Files.readString(file));

        Files.writeString(file, before + "eve:plain-text\n");
        Result broken = inProcess("pw\n", file.toString(), "frank");
        assertEquals(1, broken.status());
        assertTrue(broken.output().contains(":3:"), "names the bad line: " + broken.output());
    }
}
