package io.cachegate.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/**
 * What a reload applies of a new policy, derived from the key table: a key whose {@link ReloadRule} is restart
 * (its own, else its nearest section's) keeps its running value in the next generation, and a change to it is
 * reported under the path that states the rule ({@code server.port}; {@code cache.semantic} for any key inside
 * it). No key is named here: a new key follows the rule of the section it joins.
 */
public final class PolicyReload {

    /** Every restart-only key, in the table's order. */
    private static final List<Slot> RESTART = slots();

    private PolicyReload() {
    }

    /**
     * A restart-only key where it sits: the mappings leading to it from the root, and the path a change to it is
     * reported under.
     */
    private record Slot(List<String> sections, Key<?> key, String reportedAs) {

        String mapping() {
            return String.join(".", sections);
        }
    }

    /** The paths of the restart-only keys {@code next} changes, each once, in the key table's order. */
    public static List<String> restartRequired(Policy running, Policy next) {
        Set<String> changed = new LinkedHashSet<>();
        for (Slot slot : RESTART) {
            if (!Objects.equals(value(running, slot), value(next, slot))) {
                changed.add(slot.reportedAs());
            }
        }
        return List.copyOf(changed);
    }

    /**
     * The policy the next generation is built from: {@code next}'s file read again with every restart-only key's
     * running value in place of its own.
     *
     * @throws PolicyException when the two together fail a check that spans keys of both kinds (say, the running
     *         admin listener's address with the file's missing token)
     */
    public static Policy applied(Policy running, Policy next) throws PolicyException {
        Map<String, Map<String, Node>> kept = new HashMap<>();
        for (Slot slot : RESTART) {
            Fields mapping = mapping(running, slot);
            // A null node: the key is absent from the running policy, so it is read as absent from the next.
            kept.computeIfAbsent(slot.mapping(), path -> new HashMap<>())
                    .put(slot.key().name(), mapping == null ? null : mapping.node(slot.key().name()));
        }
        return PolicyReader.read(tree(next).keeping(kept), next.source());
    }

    /** The value a restart-only key has in {@code policy}, read as the policy's reader reads it. */
    private static Object value(Policy policy, Slot slot) {
        Fields mapping = mapping(policy, slot);
        return mapping == null ? null : slot.key().read(mapping);
    }

    /** The mapping holding {@code slot}'s key; null when the file has something else there (it did not load then). */
    private static Fields mapping(Policy policy, Slot slot) {
        // The problems are dropped: the file was checked in full when it loaded.
        NodeReader reader = tree(policy).reader(policy.source());
        Fields fields = reader.fields(tree(policy).root(), "", null);
        for (int i = 0; i < slot.sections().size() && fields != null; i++) {
            fields = fields.section(slot.sections().get(i), null);
        }
        return fields;
    }

    private static PolicyTree tree(Policy policy) {
        if (!policy.tree().known()) {
            throw new IllegalArgumentException(policy.source() + " was built in code, not read from a file: a reload"
                    + " has no values to compare or keep");
        }
        return policy.tree();
    }

    private static List<Slot> slots() {
        List<Slot> out = new ArrayList<>();
        for (Section section : PolicyKeys.ROOT.sections()) {
            collect(section, List.of(), true, null, null, out);
        }
        return Collections.unmodifiableList(out);
    }

    /** @param byPath whether every section above is a mapping, so a key has one path */
    private static void collect(Section section, List<String> parents, boolean byPath, ReloadRule inherited,
                                String owner, List<Slot> out) {
        List<String> sections = new ArrayList<>(parents);
        sections.add(section.name());
        boolean mappings = byPath && section.shape() == Section.Shape.MAPPING;
        String path = String.join(".", sections);
        ReloadRule rule = section.reload() != null ? section.reload() : inherited;
        String reportedAs = section.reload() != null ? path : owner;
        for (Key<?> key : section.keys()) {
            boolean own = key.reload() != null;
            if ((own ? key.reload() : rule) != ReloadRule.RESTART) {
                continue;
            }
            // Kept by path and compared by value: a list's items have no stable path, a section-read key no value.
            if (!mappings || !key.readable()) {
                throw new IllegalStateException(path + "." + key.name() + ": a restart-only key must be read on its"
                        + " own in a mapping");
            }
            out.add(new Slot(List.copyOf(sections), key, own ? path + "." + key.name() : reportedAs));
        }
        for (Section nested : section.sections()) {
            collect(nested, sections, mappings, rule, reportedAs, out);
        }
    }
}
