package io.sluice.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.query.wire.CommandText;
import io.sluice.query.wire.ErrFrame;
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
 * as the query server does ({@link CommandText}; docs/reliability.md). Contract: a command either
 * parses into a range with {@code start <= end}, or is refused with a {@link CommandException} whose
 * {@code ERR <code> <reason>} frame is one line of printable ASCII that gives the reason back
 * exactly, however much of the (possibly non-ASCII) request it quotes; nothing else escapes to end
 * the query thread.
 */
class QueryCommandFuzzTest {
    private static final List<StreamCodec> CODECS = PluginRegistry.withBuiltIns().plugins().stream()
            .map(QueryCommandFuzzTest::open).toList();

    @FuzzTest(maxDuration = "5m")
    void parsesOrRefuses(byte[] request) {
        String text = CommandText.decode(request);
        for (StreamCodec codec : CODECS) {
            try {
                QueryCommand command = codec.parseCommand(text);
                assertTrue(command.start() >= 0 && command.start() <= command.end(), command.toString());
            } catch (CommandException refused) {
                byte[] frame = ErrFrame.encode(refused.code(), refused.reason());
                String line = new String(frame, StandardCharsets.ISO_8859_1);
                assertTrue(line.chars().allMatch(c -> c >= 0x20 && c < 0x7F), line);
                assertEquals(refused.code(), ErrFrame.code(frame));
                if (line.length() < ErrFrame.MAX_REASON) {
                    assertEquals(refused.reason(), ErrFrame.reason(frame));
                }
            }
        }
    }

    private static StreamCodec open(StreamPlugin plugin) {
        return plugin.open(PluginSettings.none("fuzz"));
    }
}
