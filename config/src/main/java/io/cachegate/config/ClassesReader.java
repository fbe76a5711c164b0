package io.cachegate.config;

import static io.cachegate.config.ClassKeys.MAX_INFLIGHT_SHARE;
import static io.cachegate.config.ClassKeys.MAX_QUEUE_DEPTH;
import static io.cachegate.config.ClassKeys.MAX_QUEUE_TIME;
import static io.cachegate.config.ClassKeys.MAX_QUEUE_TOKENS;
import static io.cachegate.config.ClassKeys.MAY_DEGRADE;
import static io.cachegate.config.ClassKeys.PAUSABLE;
import static io.cachegate.config.ClassKeys.PRIORITY;
import static io.cachegate.config.ClassKeys.SHARE;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code classes} map (keys in {@link ClassKeys}), keeping file order; absent means one
 * {@code interactive} class.
 */
final class ClassesReader {

    private ClassesReader() {
    }

    static Map<String, TrafficClass> read(Fields root) {
        Section section = ClassKeys.SECTION;
        TrafficClass d = TrafficClass.interactive();
        if (!root.has(section.name())) {
            return Map.of(d.name(), d);
        }
        // Any name is allowed, so the map is read without a key list.
        Fields classes = root.section(section.name(), null);
        if (classes == null) {
            return Map.of(d.name(), d);
        }
        Map<String, TrafficClass> out = new LinkedHashMap<>();
        // Summed in file order, as admission sums them, so both agree on where 1 is reached.
        double shares = 0;
        for (String name : classes.keys()) {
            Node node = classes.node(name);
            Fields fields = root.reader().fields(node, classes.path(name), section.names());
            if (fields == null) {
                continue;
            }
            int priority = fields.get(PRIORITY);
            Duration maxQueueTime = fields.get(MAX_QUEUE_TIME);
            int maxQueueDepth = fields.get(MAX_QUEUE_DEPTH);
            long maxQueueTokens = fields.get(MAX_QUEUE_TOKENS);
            double share = fields.get(SHARE);
            if (share > 0 && shares + share >= 1) {
                fields.problem(SHARE.name(), "the shares of all classes add up to " + ClassKeys.format(shares + share)
                        + " with this one; they must add up to less than 1 (the rest goes by priority)");
                share = 0;
            }
            shares += share;
            out.put(name, new TrafficClass(name, priority, maxQueueTime, maxQueueDepth, maxQueueTokens, share,
                    fields.get(MAY_DEGRADE), fields.get(PAUSABLE), fields.get(MAX_INFLIGHT_SHARE)));
        }
        if (out.isEmpty() && classes.keys().isEmpty()) {
            root.problem(section.name(), "at least one class is required (or leave classes out for the default)");
        }
        return out;
    }
}
