package io.cachegate.config;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/** Reads the {@code classes} map, keeping file order; absent means one {@code interactive} class. */
final class ClassesReader {

    private static final Set<String> KEYS = Set.of("priority", "max_queue_time", "max_queue_depth",
            "max_queue_tokens", "share", "may_degrade", "pausable", "max_inflight_share");

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
        // Summed in file order, as admission sums them, so both agree on where 1 is reached.
        double shares = 0;
        for (String name : classes.keys()) {
            Node node = classes.node(name);
            Fields fields = root.reader().fields(node, classes.path(name), KEYS);
            if (fields == null) {
                continue;
            }
            int priority = (int) fields.integer("priority", d.priority(), 0, 1000);
            Duration maxQueueTime = fields.duration("max_queue_time", d.maxQueueTime());
            int maxQueueDepth = (int) fields.integer("max_queue_depth", d.maxQueueDepth(), 1, 10_000_000);
            long maxQueueTokens = fields.integer("max_queue_tokens", d.maxQueueTokens(), 1, 1_000_000_000_000L);
            double share = share(fields);
            if (share > 0 && shares + share >= 1) {
                fields.problem("share", "the shares of all classes add up to " + format(shares + share)
                        + " with this one; they must add up to less than 1 (the rest goes by priority)");
                share = 0;
            }
            shares += share;
            out.put(name, new TrafficClass(name, priority, maxQueueTime, maxQueueDepth, maxQueueTokens, share,
                    fields.bool("may_degrade", d.mayDegrade()), fields.bool("pausable", d.pausable()),
                    maxInflightShare(fields)));
        }
        if (out.isEmpty() && classes.keys().isEmpty()) {
            root.problem("classes", "at least one class is required (or leave classes out for the default)");
        }
        return out;
    }

    /** A fraction of dispatches in [0, 1); 0 (strict priority) when absent or invalid (reported). */
    private static double maxInflightShare(Fields fields) {
        double value = fields.decimal("max_inflight_share", 1.0);
        if (!(value > 0 && value <= 1)) {
            fields.problem("max_inflight_share", format(value) + " is outside (0, 1]; it is the share of the backend's"
                    + " request capacity this class may hold at once");
            return 1.0;
        }
        return value;
    }

    private static double share(Fields fields) {
        double value = fields.decimal("share", 0);
        if (!(value >= 0 && value < 1)) {
            fields.problem("share", format(value) + " is outside [0, 1); it is the fraction of dispatches"
                    + " the class is guaranteed (0: strict priority)");
            return 0;
        }
        return value;
    }

    /** Six significant digits: 0.1 + 0.2 shows as 0.3, not 0.30000000000000004. */
    private static String format(double value) {
        return new BigDecimal(value).round(new MathContext(6)).stripTrailingZeros().toPlainString();
    }
}
