package io.cachegate.config;

import java.util.Map;
import org.yaml.snakeyaml.nodes.Node;

/**
 * The YAML a {@link Policy} was read from: its node tree, how its {@code ${ENV}} references expand, and the running
 * values a reload kept over the file's ({@link PolicyReload}). A reload re-reads it rather than rebuilding settings
 * records by hand. A policy built in code has none.
 */
public final class PolicyTree {

    /** The tree of a policy built in code: nothing to re-read. */
    static final PolicyTree NONE = new PolicyTree(null, null, Map.of());

    private final Node root;
    private final EnvSubstitution env;
    private final Map<String, Map<String, Node>> kept;

    /**
     * @param root the document's root node; null for an empty document
     * @param kept by a mapping's path, the nodes read in place of its keys' nodes (a null node: the key is absent)
     */
    PolicyTree(Node root, EnvSubstitution env, Map<String, Map<String, Node>> kept) {
        this.root = root;
        this.env = env;
        this.kept = kept;
    }

    /** False for a policy built in code. */
    boolean known() {
        return env != null;
    }

    Node root() {
        return root;
    }

    /** A reader of this tree reporting problems against {@code source}. */
    NodeReader reader(String source) {
        return new NodeReader(source, env, kept);
    }

    /** This tree with {@code kept} read in place of the file's nodes. */
    PolicyTree keeping(Map<String, Map<String, Node>> kept) {
        return new PolicyTree(root, env, kept);
    }

    @Override
    public String toString() {
        return known() ? "PolicyTree[kept=" + kept.keySet() + "]" : "PolicyTree[none]";
    }
}
