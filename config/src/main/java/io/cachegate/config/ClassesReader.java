package io.cachegate.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/** Reads the {@code classes} map, keeping file order; absent means one {@code interactive} class. */
final class ClassesReader {

    private static final Set<String> KEYS = Set.of("priority", "max_queue_time", "max_queue_depth");

    private ClassesReader() {
    }

    static Map<String, TrafficClass> read(Fields root) {
        TrafficClass d = TrafficClass.interactive();
        if (!root.has("classes")) {
            return Map.of(d.name(), d);
        }
        // Any name is allowed, so the map is read without a key list.
        Fields classes = root.section("classes", null);
        if (classes == null) {
            return Map.of(d.name(), d);
        }
        Map<String, TrafficClass> out = new LinkedHashMap<>();
        for (String name : classes.keys()) {
            Node node = classes.node(name);
            Fields fields = root.reader().fields(node, classes.path(name), KEYS);
            if (fields == null) {
                continue;
            }
            out.put(name, new TrafficClass(name,
                    (int) fields.integer("priority", d.priority(), 0, 1000),
                    fields.duration("max_queue_time", d.maxQueueTime()),
                    (int) fields.integer("max_queue_depth", d.maxQueueDepth(), 1, 10_000_000)));
        }
        if (out.isEmpty() && classes.keys().isEmpty()) {
            root.problem("classes", "at least one class is required (or leave classes out for the default)");
        }
        return out;
    }
}
