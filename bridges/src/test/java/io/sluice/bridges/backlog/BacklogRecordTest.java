package io.sluice.bridges.backlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.sluice.bridges.BridgeMessage;
import io.sluice.bridges.MessageProperties;
import io.sluice.bridges.UserProperty;
import org.junit.jupiter.api.Test;

class BacklogRecordTest {

    @Test
    void aRecordReadsBackAsWritten() {
        MessageProperties properties = new MessageProperties(1, 30, "application/json", "re/ply", new byte[] {9, 8},
                List.of(new UserProperty("a", "1"), new UserProperty("a", "2"), new UserProperty("ü", "")));
        BridgeMessage message = new BridgeMessage("local/ä", "payload".getBytes(StandardCharsets.UTF_8), 2, true,
                properties, "client-7", 1_700_000_000_123L);
        BacklogRecord read = BacklogRecord.decode(new BacklogRecord("remote/x", new byte[] {1}, message).encode());
        assertEquals("remote/x", read.target());
        assertArrayEquals(new byte[] {1}, read.key());
        BridgeMessage m = read.message();
        assertEquals("local/ä", m.topic());
        assertEquals("payload", new String(m.payload(), StandardCharsets.UTF_8));
        assertEquals(2, m.qos());
        assertEquals(true, m.retain());
        assertEquals("client-7", m.publisherId());
        assertEquals(1_700_000_000_123L, m.createdMillis());
        assertEquals(properties.userProperties(), m.properties().userProperties());
        assertEquals("application/json", m.properties().contentType());
        assertArrayEquals(new byte[] {9, 8}, m.properties().correlationData());
        assertEquals(30, m.properties().expiryInterval());
    }

    @Test
    void aPlainRecordCarriesNothingItDoesNotNeed() {
        BridgeMessage message = new BridgeMessage("a", new byte[] {1, 2}, 1, false, MessageProperties.NONE, null, 5);
        byte[] value = new BacklogRecord("b", message).encode();
        assertEquals(10 + 5 + 5 + 2, value.length);
        BacklogRecord read = BacklogRecord.decode(value);
        assertNull(read.key());
        assertNull(read.message().publisherId());
        assertEquals(MessageProperties.NONE, read.message().properties());
    }

    @Test
    void somethingElseIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> BacklogRecord.decode(new byte[] {7, 0, 0}));
        assertThrows(IllegalArgumentException.class, () -> BacklogRecord.decode(new byte[] {1, 0, 0}));
    }
}
