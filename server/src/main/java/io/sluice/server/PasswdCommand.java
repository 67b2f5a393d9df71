package io.sluice.server;

import io.sluice.net.auth.InvalidFileException;
import io.sluice.net.auth.PasswordFile;
import io.sluice.net.auth.ScramCredential;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code bin/sluice passwd [-i ITERATIONS] FILE USER} adds USER to the password file or changes
 * its password; {@code bin/sluice passwd -d FILE USER} removes USER. The password is asked for
 * twice on the terminal without echo; without a terminal (a script, a pipe) it is the first line
 * of standard input. The file is created if missing and always replaced atomically (see
 * {@link PasswordFile}); a running broker picks the change up by itself.
 */
final class PasswdCommand {
    static final String USAGE = """
            usage: sluice passwd [-i ITERATIONS] FILE USER   add USER or change its password
                   sluice passwd -d FILE USER                remove USER""";

    private final InputStream stdin;
    private final PrintStream out;
    private final PrintStream err;

    private PasswdCommand(InputStream stdin, PrintStream out, PrintStream err) {
        this.stdin = stdin;
        this.out = out;
        this.err = err;
    }

    /** Runs the command; returns the exit status (0 done, 1 failed, 64 bad usage). */
    static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
        return new PasswdCommand(stdin, out, err).run(args);
    }

    private int run(String[] args) {
        boolean delete = false;
        int iterations = ScramCredential.DEFAULT_ITERATIONS;
        int i = 0;
        try {
            for (; i < args.length && args[i].startsWith("-"); i++) {
                switch (args[i]) {
                    case "-d" -> delete = true;
                    case "-i" -> iterations = Integer.parseInt(args[++i]);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (args.length - i != 2) {
                throw new IllegalArgumentException("expected FILE and USER");
            }
            PasswordFile.checkUserName(args[i + 1]);
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            err.println("sluice passwd: " + (e instanceof ArrayIndexOutOfBoundsException ? "-i needs a number"
                    : e.getMessage()));
            err.println(USAGE);
            return 64;
        }
        try {
            return update(Path.of(args[i]), args[i + 1], delete, iterations);
        } catch (IOException | InvalidFileException | IllegalArgumentException e) {
            err.println("sluice passwd: " + e.getMessage());
            return 1;
        }
    }

    private int update(Path file, String user, boolean delete, int iterations)
            throws IOException, InvalidFileException {
        Map<String, ScramCredential> users = Files.exists(file) ? new LinkedHashMap<>(PasswordFile.read(file))
                : new LinkedHashMap<>();
        if (delete) {
            if (users.remove(user) == null) {
                err.println("sluice passwd: no user '" + user + "' in " + file);
                return 1;
            }
            PasswordFile.write(file, users);
            out.println("removed user '" + user + "' from " + file);
            return 0;
        }
        char[] password = readPassword(user);
        if (password == null) {
            return 1;
        }
        try {
            boolean existed = users.put(user, ScramCredential.create(password, iterations)) != null;
            PasswordFile.write(file, users);
            out.println((existed ? "changed the password of user '" : "added user '") + user + "' in " + file);
            return 0;
        } finally {
            Arrays.fill(password, '\0');
        }
    }

    /** Twice without echo on a terminal, else one line of standard input; null (after saying why) if unusable. */
    private char[] readPassword(String user) throws IOException {
        Console console = System.console();
        char[] password;
        if (console != null) {
            password = console.readPassword("Password for %s: ", user);
            char[] again = console.readPassword("Repeat it: ");
            if (password == null || again == null || !Arrays.equals(password, again)) {
                err.println("sluice passwd: the passwords differ; nothing changed");
                return null;
            }
            Arrays.fill(again, '\0');
        } else {
            String line = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8)).readLine();
            password = line == null ? null : line.toCharArray();
        }
        if (password == null || password.length == 0) {
            err.println("sluice passwd: an empty password is not allowed; nothing changed");
            return null;
        }
        return password;
    }
}
