package io.sluice.query;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.stream.CommandException;
import io.sluice.stream.PluginRegistry;
import io.sluice.stream.PluginSettings;
import io.sluice.stream.QueryCommand;
import io.sluice.stream.StreamCodec;
import io.sluice.stream.StreamPlugin;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Fuzzes the query command parser of every built-in plugin, with the request bytes turned into text
 * as the query server does (docs/reliability.md). Contract: a command either parses into a range with
 * {@code start <= end}, or is refused with a {@link CommandException} whose code is an upper-case
 * token and whose reason is one line of printable ASCII, so the {@code ERR <code> <reason>} frame
 * stays one well-formed line; nothing else escapes to end the query thread.
 */
class QueryCommandFuzzTest {
    private static final List<StreamCodec> CODECS = PluginRegistry.withBuiltIns().plugins().stream()
            .map(QueryCommandFuzzTest::open).toList();

    @FuzzTest(maxDuration = "5m")
    void parsesOrRefuses(byte[] request) {
        String text = new String(request, StandardCharsets.ISO_8859_1);
        for (StreamCodec codec : CODECS) {
            try {
                QueryCommand command = codec.parseCommand(text);
                assertTrue(command.start() >= 0 && command.start() <= command.end(), command.toString());
            } catch (CommandException refused) {
                assertTrue(refused.code().matches("[A-Z0-9_]+"), refused.code());
                assertTrue(refused.reason().chars().allMatch(c -> c >= 0x20 && c < 0x7F), refused.reason());
            }
        }
    }

    private static StreamCodec open(StreamPlugin plugin) {
        return plugin.open(PluginSettings.none("fuzz"));
    }
}
