package io.sluice.stream;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** An ordered list of uniquely named columns: the shape of an encoded batch or of a file. Immutable. */
public final class Schema {

    private final List<Column> columns;
    private final Map<String, Integer> indexByName;

    private Schema(List<Column> columns) {
        this.columns = List.copyOf(columns);
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < this.columns.size(); i++) {
            Column column = this.columns.get(i);
            if (index.putIfAbsent(column.name(), i) != null) {
                throw new IllegalArgumentException("duplicate column '" + column.name() + "' in schema " + this.columns);
            }
        }
        this.indexByName = Collections.unmodifiableMap(index);
    }

    /** A schema of the given columns, in order. */
    public static Schema of(Column... columns) {
        return new Schema(List.of(columns));
    }

    /** A schema of the given columns, in order. */
    public static Schema of(List<Column> columns) {
        return new Schema(columns);
    }

    public List<Column> columns() {
        return columns;
    }

    public int size() {
        return columns.size();
    }

    public Column column(int index) {
        return columns.get(index);
    }

    /** The column's position, or -1 when this schema has no such column. */
    public int indexOf(String name) {
        Integer index = indexByName.get(name);
        return index == null ? -1 : index;
    }

    /** The named column, or null. */
    public Column column(String name) {
        int index = indexOf(name);
        return index < 0 ? null : columns.get(index);
    }

    public boolean contains(String name) {
        return indexByName.containsKey(name);
    }

    /**
     * This schema followed by the columns of {@code other} it lacks. A column present in both
     * must have the same type; it becomes nullable if either side is. Batches whose columns vary
     * (SPI signals) share one file through this.
     */
    public Schema union(Schema other) {
        List<Column> merged = new ArrayList<>(columns);
        boolean changed = false;
        for (Column column : other.columns) {
            int index = indexOf(column.name());
            if (index < 0) {
                merged.add(column);
                changed = true;
                continue;
            }
            Column mine = columns.get(index);
            if (mine.type() != column.type()) {
                throw new IllegalArgumentException("column '" + column.name() + "' is " + mine.type()
                        + " in one batch and " + column.type() + " in another");
            }
            if (column.nullable() && !mine.nullable()) {
                merged.set(index, Column.nullable(mine.name(), mine.type()));
                changed = true;
            }
        }
        return changed ? new Schema(merged) : this;
    }

    /** The named columns this schema has, in the order given; names it lacks are left out. */
    public Schema project(Collection<String> names) {
        List<Column> projected = new ArrayList<>(names.size());
        for (String name : names) {
            Column column = column(name);
            if (column != null && !projected.contains(column)) {
                projected.add(column);
            }
        }
        return new Schema(projected);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Schema other && columns.equals(other.columns);
    }

    @Override
    public int hashCode() {
        return columns.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < columns.size(); i++) {
            Column c = columns.get(i);
            sb.append(i == 0 ? "" : ", ").append(c.name()).append(' ').append(c.type()).append(c.nullable() ? "?" : "");
        }
        return sb.append(']').toString();
    }
}
