package io.cachegate.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Walks SnakeYAML nodes for the section readers, collecting problems with line and path instead of
 * throwing, so one load reports everything that is wrong. Values are read as text and typed here,
 * which also keeps YAML 1.1 surprises (a model named {@code no} read as false) out of the policy.
 */
final class NodeReader {

    private final String file;
    private final EnvSubstitution env;
    private final Map<String, Map<String, Node>> kept;
    private final List<PolicyProblem> problems = new ArrayList<>();

    NodeReader(String file, EnvSubstitution env) {
        this(file, env, Map.of());
    }

    /** @param kept by a mapping's path, nodes read in place of its keys' nodes (see {@link PolicyTree}) */
    NodeReader(String file, EnvSubstitution env, Map<String, Map<String, Node>> kept) {
        this.file = file;
        this.env = env;
        this.kept = kept;
    }

    void problem(Node node, String path, String message) {
        problem(line(node), path, message);
    }

    void problem(int line, String path, String message) {
        problems.add(new PolicyProblem(file, line, path, message));
    }

    /** How many problems were found so far, to tell whether one read added any. */
    int problemCount() {
        return problems.size();
    }

    /** Problems in file order; a stable sort keeps several problems on one line in reading order. */
    List<PolicyProblem> problems() {
        List<PolicyProblem> sorted = new ArrayList<>(problems);
        sorted.sort(Comparator.comparingInt(PolicyProblem::line));
        return sorted;
    }

    static int line(Node node) {
        return node == null ? 1 : node.getStartMark().getLine() + 1;
    }

    /** True for an absent value, an empty value or {@code ~}/{@code null}: all mean "use the default". */
    static boolean isNull(Node node) {
        return node == null || (node instanceof ScalarNode && Tag.NULL.equals(node.getTag()));
    }

    /**
     * The fields of a mapping. Duplicate keys are reported (YAML would silently keep one) and so are
     * keys not in {@code allowed}. Returns an empty section for an absent value, null for a wrong type.
     */
    Fields fields(Node node, String path, Set<String> allowed) {
        Map<String, Node> keep = kept.getOrDefault(path, Map.of());
        if (isNull(node)) {
            return new Fields(this, path, node, keep.isEmpty() ? Map.of() : keep(new LinkedHashMap<>(), keep));
        }
        if (!(node instanceof MappingNode mapping)) {
            problem(node, path, "expected a mapping (key: value), found " + describe(node));
            return null;
        }
        Map<String, Node> values = new LinkedHashMap<>();
        Map<String, Node> keys = new LinkedHashMap<>();
        for (NodeTuple tuple : mapping.getValue()) {
            Node keyNode = tuple.getKeyNode();
            if (!(keyNode instanceof ScalarNode scalarKey)) {
                problem(keyNode, path, "keys must be plain names, found " + describe(keyNode));
                continue;
            }
            String key = scalarKey.getValue();
            String keyPath = Fields.join(path, key);
            if (keys.containsKey(key)) {
                problem(keyNode, keyPath, "duplicate key (first defined on line " + line(keys.get(key)) + ")");
            } else if (allowed != null && !allowed.contains(key)) {
                problem(keyNode, keyPath, "unknown key" + Suggestions.didYouMean(key, allowed));
            } else {
                keys.put(key, keyNode);
                values.put(key, tuple.getValueNode());
            }
        }
        return new Fields(this, path, node, keep(values, keep));
    }

    /** {@code values} with the kept nodes in place of the file's; a null node removes its key. */
    private static Map<String, Node> keep(Map<String, Node> values, Map<String, Node> keep) {
        keep.forEach((key, node) -> {
            if (node == null) {
                values.remove(key);
            } else {
                values.put(key, node);
            }
        });
        return values;
    }

    /** The items of a sequence; an empty list for an absent value, null (after a problem) for a wrong type. */
    List<Node> items(Node node, String path) {
        if (isNull(node)) {
            return List.of();
        }
        if (node instanceof SequenceNode sequence) {
            return sequence.getValue();
        }
        problem(node, path, "expected a list, found " + describe(node));
        return null;
    }

    /**
     * The text of a scalar after {@code ${ENV}} expansion; null when absent, or after reporting a
     * wrong type or a failed expansion (callers then keep their default and add nothing).
     */
    String text(Node node, String path) {
        if (isNull(node)) {
            return null;
        }
        if (!(node instanceof ScalarNode scalar)) {
            problem(node, path, "expected a single value, found " + describe(node));
            return null;
        }
        List<String> errors = new ArrayList<>(1);
        String value = env.expand(scalar.getValue(), errors);
        for (String error : errors) {
            problem(node, path, error);
        }
        return value;
    }

    static String describe(Node node) {
        if (node instanceof MappingNode) {
            return "a mapping";
        }
        if (node instanceof SequenceNode) {
            return "a list";
        }
        return node instanceof ScalarNode scalar ? Durations.quote(scalar.getValue()) : "nothing";
    }
}
