package io.sluice.examples.json;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The configured field paths as a tree of member names, so that one pass over a payload finds
 * every field: at each object the parser asks which of its members lead to a field. A node is
 * either a field (a leaf) or an object holding fields, never both (the settings refuse a field
 * inside another). Immutable after construction; shared by threads.
 */
final class FieldTree {

    private final Map<String, FieldTree> children = new HashMap<>();
    private int field = -1;

    private FieldTree() {
    }

    /** The tree of these fields. */
    static FieldTree of(List<JsonField> fields) {
        FieldTree root = new FieldTree();
        for (JsonField field : fields) {
            FieldTree node = root;
            for (String segment : field.segments()) {
                node = node.children.computeIfAbsent(segment, s -> new FieldTree());
            }
            node.field = field.index();
        }
        return root;
    }

    /** The node a member leads to, or null when it leads to no field. */
    FieldTree child(String member) {
        return children.get(member);
    }

    /** The field this node is, or -1 for an object node. */
    int field() {
        return field;
    }

    /** Marks every field at or under this node. */
    void markAll(boolean[] found) {
        if (field >= 0) {
            found[field] = true;
        }
        children.values().forEach(child -> child.markAll(found));
    }
}
