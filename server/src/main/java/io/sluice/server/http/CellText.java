package io.sluice.server.http;

import io.sluice.stream.BinaryVector;
import io.sluice.stream.BooleanVector;
import io.sluice.stream.ColumnVector;
import io.sluice.stream.DoubleVector;
import io.sluice.stream.IntVector;
import io.sluice.stream.LongVector;
import io.sluice.stream.StringVector;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * One cell of a column vector as a plain value for text formats: numbers and booleans as
 * themselves, text as a string, bytes as a {@link Bytes} that knows whether it is UTF-8 text
 * (payloads usually are: JSON, CSV lines) or must be shown as base64.
 */
final class CellText {
    private CellText() {
    }

    /** Bytes that are valid UTF-8 ({@code text} set) or not ({@code text} null). */
    record Bytes(byte[] raw, String text) {
        String base64() {
            return java.util.Base64.getEncoder().encodeToString(raw);
        }
    }

    /** The cell at {@code row}, or null. */
    static Object of(ColumnVector vector, int row) {
        if (vector == null || vector.isNull(row)) {
            return null;
        }
        if (vector instanceof LongVector v) {
            return v.get(row);
        }
        if (vector instanceof IntVector v) {
            return v.get(row);
        }
        if (vector instanceof DoubleVector v) {
            return v.get(row);
        }
        if (vector instanceof BooleanVector v) {
            return v.get(row);
        }
        if (vector instanceof StringVector v) {
            return v.get(row);
        }
        return bytes(((BinaryVector) vector).get(row));
    }

    private static Bytes bytes(byte[] raw) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(raw)).toString();
            return new Bytes(raw, text);
        } catch (CharacterCodingException e) {
            return new Bytes(raw, null);
        }
    }
}
