package io.sluice.examples.json;

import java.util.List;

/**
 * One configured field: where it is in a JSON payload, its type, and the column it becomes.
 *
 * @param path     the dotted path as configured, e.g. {@code engine.rpm}
 * @param segments the path's member names, outermost first
 * @param column   the stored column: the path with {@code .} replaced by {@code _} ({@code engine_rpm})
 * @param type     what the value must be
 * @param index    its position in {@code plugin.fields}, which is also its column order
 */
public record JsonField(String path, List<String> segments, String column, FieldType type, int index) {

    public JsonField {
        segments = List.copyOf(segments);
    }
}
