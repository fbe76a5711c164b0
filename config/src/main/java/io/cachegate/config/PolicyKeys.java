package io.cachegate.config;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * Every section of a policy file, in the order the example file lists them: the tree of {@link Key}s
 * that {@link PolicyReader} allows at the top, the key reference is printed from, and
 * {@code ExamplePolicyTest} holds {@code example-policy.yaml} to.
 */
final class PolicyKeys {

    static final Section ROOT = Section.mapping("", "a policy file").with(ServerKeys.SECTION, BackendKeys.SECTION,
            TenantKeys.SECTION, ClassKeys.SECTION, CacheKeys.SECTION, RouteKeys.SECTION, AdmissionKeys.SECTION,
            TelemetryKeys.PRICES, TelemetryKeys.TELEMETRY, TelemetryKeys.LOG);

    private PolicyKeys() {
    }

    /**
     * Every key as one Markdown table (path, type, default, allowed values, reload rule, description), for the
     * docs. A section's row shows the rule it states for its keys, a key's row the rule it follows.
     */
    static String reference() {
        StringBuilder out = new StringBuilder("| Key | Type | Default | Allowed | Reload | Description |\n");
        out.append("|---|---|---|---|---|---|\n");
        for (Section section : ROOT.sections()) {
            append(out, "", section, null);
        }
        return out.toString();
    }

    private static void append(StringBuilder out, String parent, Section section, ReloadRule inherited) {
        String path = parent + section.name() + switch (section.shape()) {
            case MAPPING -> "";
            case LIST -> "[]";
            case NAMED -> ".<name>";
        };
        String shape = switch (section.shape()) {
            case MAPPING -> "mapping";
            case LIST -> "list of mappings";
            case NAMED -> "mappings by name";
        };
        ReloadRule rule = section.reload() != null ? section.reload() : inherited;
        row(out, "**" + code(path) + "**", shape, "", "", text(section.reload()), section.doc());
        for (Key<?> key : section.keys()) {
            String doc = key.replacedBy() == null ? key.doc()
                    : key.doc() + "; older spelling of " + code(path + "." + key.replacedBy());
            row(out, code(path + "." + key.name()), key.type(), defaultOf(key), key.range(),
                    text(key.reload() != null ? key.reload() : rule), doc);
        }
        for (Section nested : section.sections()) {
            append(out, path + ".", nested, rule);
        }
    }

    private static void row(StringBuilder out, String... cells) {
        out.append('|');
        for (String cell : cells) {
            out.append(' ').append(cell.replace("|", "\\|")).append(" |");
        }
        out.append('\n');
    }

    /** A default value as code, as YAML writes it; a default said in words ("the route's class") as it is. */
    private static String defaultOf(Key<?> key) {
        Object fallback = key.fallback();
        boolean value = fallback != null && !Optional.empty().equals(fallback) && !OptionalLong.empty().equals(fallback)
                || key.defaultText().startsWith("[");
        return value ? code(key.defaultText()) : key.defaultText();
    }

    private static String text(ReloadRule rule) {
        return rule == null ? "" : rule.text();
    }

    private static String code(String text) {
        return "`" + text + "`";
    }
}
