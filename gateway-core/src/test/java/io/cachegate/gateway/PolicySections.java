package io.cachegate.gateway;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Merges a test's policy sections into a base policy: maps merge key by key, list entries with a {@code name} merge
 * into the base's entry of that name (the others are appended), any other value replaces the base's, and a plain
 * {@code null} removes the base's key. Every other scalar keeps the text it was written as.
 */
final class PolicySections {

    private PolicySections() {
    }

    /** {@code overlay} merged into {@code base}, as block-style YAML. */
    static String render(String base, String overlay) {
        Yaml yaml = textOnlyYaml();
        Map<String, Object> merged = yaml.load(base);
        Map<String, Object> sections = yaml.load(overlay);
        if (sections != null) {
            merged = mergeMaps(merged, sections);
        }
        return yaml.dump(merged);
    }

    /**
     * YAML that keeps every scalar the text it was, dumped in block style: the policy reader types values itself,
     * and a round trip through YAML 1.1's implicit types would turn {@code off} into {@code false}.
     */
    static Yaml textOnlyYaml() {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(new SafeConstructor(new LoaderOptions()), new Representer(options), options,
                new LoaderOptions(), new TextOnly());
    }

    /** Resolves plain scalars to text, all but a plain {@code null} or {@code ~} (which removes a key). */
    private static final class TextOnly extends Resolver {
        @Override
        protected void addImplicitResolvers() {
            addImplicitResolver(Tag.NULL, NULL, "~nN\0");
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> mergeMaps(Map<String, Object> base, Map<String, Object> overlay) {
        Map<String, Object> out = new LinkedHashMap<>(base);
        overlay.forEach((key, value) -> {
            Object old = out.get(key);
            if (value == null) {
                out.remove(key);
            } else if (old instanceof Map && value instanceof Map) {
                out.put(key, mergeMaps((Map<String, Object>) old, (Map<String, Object>) value));
            } else if (old instanceof List && value instanceof List && named((List<Object>) value)) {
                out.put(key, mergeByName((List<Object>) old, (List<Object>) value));
            } else {
                out.put(key, value);
            }
        });
        return out;
    }

    /** Entries of {@code overlay} merge into the base entry of the same name; the others are appended. */
    @SuppressWarnings("unchecked")
    private static List<Object> mergeByName(List<Object> base, List<Object> overlay) {
        List<Object> out = new ArrayList<>(base);
        for (Object entry : overlay) {
            Map<String, Object> map = (Map<String, Object>) entry;
            int at = indexOfName(out, map.get("name"));
            if (at < 0) {
                out.add(map);
            } else {
                out.set(at, mergeMaps((Map<String, Object>) out.get(at), map));
            }
        }
        return out;
    }

    private static boolean named(List<Object> list) {
        return !list.isEmpty() && list.stream().allMatch(e -> e instanceof Map<?, ?> m && m.get("name") != null);
    }

    private static int indexOfName(List<Object> list, Object name) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) instanceof Map<?, ?> m && name.equals(m.get("name"))) {
                return i;
            }
        }
        return -1;
    }
}
