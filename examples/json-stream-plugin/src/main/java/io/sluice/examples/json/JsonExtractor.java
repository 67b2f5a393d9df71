package io.sluice.examples.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;

/**
 * Finds the configured fields in one JSON payload with Jackson's streaming parser, in one pass,
 * skipping every member that leads to no field without building anything for it.
 *
 * <p>The payload must be exactly one JSON object (whitespace around it is fine); anything else
 * (not JSON, JSON cut short, an array, two objects) is {@link #NOT_JSON} and leaves every field
 * null. Within an object: a field that is absent, or under a member that is {@code null}, is
 * {@link #MISSING}; a value of the wrong type for its field, or a scalar where the path needs an
 * object, is {@link #WRONG_TYPE}; a JSON {@code null} for a field is a null value and no
 * problem. A member named twice counts as its last value. Thread-safe: the factory is, and
 * each call has its own parser.
 */
final class JsonExtractor {

    /** Every field found with its type (or null). */
    static final int OK = 0;
    /** The payload is not one JSON object. */
    static final int NOT_JSON = 1;
    /** Some field is absent. */
    static final int MISSING = 2;
    /** Some field has the wrong type. */
    static final int WRONG_TYPE = 4;

    private final JsonFactory factory;
    private final FieldTree tree;

    JsonExtractor(JsonFactory factory, FieldTree tree) {
        this.factory = factory;
        this.tree = tree;
    }

    /**
     * Reads a payload into one row of the columns.
     *
     * @param found scratch of one flag per field, overwritten
     * @return {@link #OK}, {@link #NOT_JSON}, or {@link #MISSING} and {@link #WRONG_TYPE} or'ed together
     */
    int extract(byte[] payload, FieldColumn[] columns, int row, boolean[] found) {
        Arrays.fill(found, false);
        int problems;
        try (JsonParser parser = factory.createParser(payload)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                problems = NOT_JSON;
            } else {
                problems = readObject(parser, tree, columns, row, found);
                if (parser.nextToken() != null) {
                    problems = NOT_JSON;
                }
            }
        } catch (IOException e) {
            // Jackson's parse errors, invalid UTF-8 and exceeded read constraints are all IOExceptions.
            problems = NOT_JSON;
        }
        if (problems == NOT_JSON) {
            for (FieldColumn column : columns) {
                column.clear(row);
            }
            return NOT_JSON;
        }
        for (boolean f : found) {
            if (!f) {
                problems |= MISSING;
            }
        }
        return problems;
    }

    /** Reads the members of the object the parser just entered, up to its end. */
    private static int readObject(JsonParser parser, FieldTree node, FieldColumn[] columns, int row, boolean[] found)
            throws IOException {
        int problems = OK;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            FieldTree child = node.child(parser.currentName());
            JsonToken value = parser.nextToken();
            if (child == null) {
                parser.skipChildren();
            } else if (child.field() >= 0) {
                found[child.field()] = true;
                if (!columns[child.field()].read(parser, row)) {
                    problems |= WRONG_TYPE;
                }
            } else if (value == JsonToken.START_OBJECT) {
                problems |= readObject(parser, child, columns, row, found);
            } else if (value != JsonToken.VALUE_NULL) {
                child.markAll(found);
                problems |= WRONG_TYPE;
                parser.skipChildren();
            }
        }
        return problems;
    }
}
