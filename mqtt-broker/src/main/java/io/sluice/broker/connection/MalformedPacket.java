package io.sluice.broker.connection;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.mqtt.MqttUnacceptableProtocolVersionException;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says in the broker's words what was wrong with a packet the decoder refused. The decoder's own
 * texts name its internals ({@code minimumReadableBytes : -2 (expected: >= 0)}) or half a thought
 * ({@code MQIsdp and 5 don't match}); a client's operator reading a refusal line or a Reason
 * String needs to know what the client sent.
 */
final class MalformedPacket {
    private static final Pattern NAME_AND_LEVEL = Pattern.compile("(.*) and (-?\\d+) don't match");
    private static final Pattern UNKNOWN_NAME = Pattern.compile("(.*) is an unknown protocol name");
    private static final Pattern UNKNOWN_LEVEL = Pattern.compile("(-?\\d+) is unknown mqtt version");

    private MalformedPacket() {
    }

    /** What was wrong, for a packet the decoder refused with {@code cause}; {@code maxPacketSize} is the configured limit. */
    static String describe(Throwable cause, int maxPacketSize) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        String text = String.valueOf(c.getMessage());
        if (c instanceof TooLongFrameException) {
            return "packet larger than mqtt.max_packet_size (" + maxPacketSize + " bytes)";
        }
        if (c instanceof MqttUnacceptableProtocolVersionException) {
            return protocol(text);
        }
        if (c instanceof IllegalArgumentException || c instanceof IndexOutOfBoundsException) {
            // a length inside the packet (string, properties) runs past the end its Remaining Length gives
            return "the lengths of its fields add up to more than its Remaining Length";
        }
        if (text.startsWith("invalid UTF-8")) {
            return "a string that is not valid UTF-8";
        }
        if (text.contains("U+0000")) {
            return "a string containing U+0000";
        }
        if (text.startsWith("invalid messageId")) {
            return "packet identifier 0 (must be 1 to 65535)";
        }
        return text;
    }

    private static String protocol(String text) {
        Matcher m = NAME_AND_LEVEL.matcher(text);
        if (m.matches()) {
            return "protocol name '" + m.group(1) + "' with protocol level " + m.group(2)
                    + " (MQTT 3.1 is 'MQIsdp' level 3; 3.1.1 and 5 are 'MQTT' levels 4 and 5)";
        }
        m = UNKNOWN_NAME.matcher(text);
        if (m.matches()) {
            return "unknown protocol name '" + m.group(1) + "' (expected 'MQTT' or 'MQIsdp')";
        }
        m = UNKNOWN_LEVEL.matcher(text);
        if (m.matches()) {
            return "unknown protocol level " + m.group(1) + " (supported: 3, 4 and 5)";
        }
        return "unsupported protocol: " + text;
    }
}
