package io.cachegate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * {@code example-policy.yaml} against the key definitions ({@link PolicyKeys}): it shows every key, and
 * every default its comments state ("{@code (default 2s)}") is the key's default. A key is looked up where
 * it first appears (the first backend, route or class that sets it). A key that a loadable example cannot
 * set (a file that must exist; a tokenizer the bundled model refuses) is shown commented out
 * ({@code # tokenizer: ...}); an older spelling is not shown.
 */
class ExamplePolicyTest {

    private static final Pattern DEFAULT = Pattern.compile("(?:^|[\\s(])default ([^\\s;,)]+)");

    private final String text = example();
    private final List<String> lines = text.lines().toList();
    private final Node root = compose(text);
    private final List<String> problems = new ArrayList<>();

    @Test
    void example_showsEveryKey_withTheDefinedDefault() {
        for (Section section : PolicyKeys.ROOT.sections()) {
            check(section.name(), section, nodesOf(section, List.of((MappingNode) root)));
        }

        assertThat(problems).as("example-policy.yaml disagrees with the *Keys definitions").isEmpty();
    }

    @Test
    void keys_areUniqueInEverySection() {
        assertUnique(PolicyKeys.ROOT);
    }

    /** Writes the reference to {@code config/target/policy-keys.md}, for {@code docs/policy.md}. */
    @Test
    void reference_hasOneRowPerKeyAndSection() throws IOException {
        String reference = PolicyKeys.reference();
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "policy-keys.md"), reference);

        assertThat(reference.lines().count()).as("a header, then a row per section and key below the root")
                .isEqualTo(2 + count(PolicyKeys.ROOT) - 1);
        assertThat(reference)
                .contains("| `server.port` | integer | `8080` | 0..65535 | restart | proxy port; 0 = any free port |");
        assertThat(reference).contains("| `classes.<name>.share` | number | `0` | [0, 1) | live |");
        assertThat(reference).contains("| `backends[].model_version` | string | read from /v1/models |");
    }

    private void check(String path, Section section, List<MappingNode> mappings) {
        if (mappings.isEmpty()) {
            problems.add(path + ": section missing");
            return;
        }
        for (Key<?> key : section.keys()) {
            String keyPath = path + "." + key.name();
            NodeTuple tuple = first(mappings, key.name());
            if (tuple != null) {
                checkDefault(keyPath, key, comment(tuple));
            } else if (key.replacedBy() == null && !commentedOut(mappings, key.name())) {
                problems.add(keyPath + ": missing");
            }
        }
        for (Section nested : section.sections()) {
            check(path + "." + nested.name(), nested, nodesOf(nested, mappings));
        }
    }

    private void checkDefault(String path, Key<?> key, String comment) {
        Matcher matcher = DEFAULT.matcher(comment);
        if (!matcher.find()) {
            if (!key.defaultText().contains(" ") && !key.defaultText().equals("required")) {
                problems.add(path + ": the comment does not state (default " + key.defaultText() + ")");
            }
            return;
        }
        String shown = matcher.group(1).replaceAll(":$", "");
        if (!sameDefault(key, shown)) {
            problems.add(path + ": the example states default " + shown + ", the definition " + key.defaultText());
        }
    }

    /** Whether {@code shown} is the key's default, read as a policy value would be (so 4194304 is 4MiB). */
    private static boolean sameDefault(Key<?> key, String shown) {
        if (!key.readable() || key.fallback() == null) {
            return shown.equals(key.defaultText());
        }
        if (key.fallback() instanceof Optional<?> && shown.equals("none")) {
            return key.fallback().equals(Optional.empty());
        }
        NodeReader reader = new NodeReader("default", new EnvSubstitution(name -> null));
        // Quoted, as a plain * would be a YAML alias; values are read as text whatever their quoting.
        String yaml = shown.startsWith("[") ? shown : "'" + shown.replace("'", "''") + "'";
        Fields fields = reader.fields(compose(key.name() + ": " + yaml), "", Set.of(key.name()));
        Object value = key.read(fields);
        return reader.problems().isEmpty() && key.fallback().equals(value);
    }

    /** The mappings of {@code section} inside each of {@code parents}, in file order. */
    private static List<MappingNode> nodesOf(Section section, List<MappingNode> parents) {
        List<MappingNode> out = new ArrayList<>();
        for (MappingNode parent : parents) {
            Node value = valueOf(parent, section.name());
            switch (section.shape()) {
                case MAPPING -> addMapping(out, value);
                case LIST -> {
                    if (value instanceof SequenceNode list) {
                        list.getValue().forEach(item -> addMapping(out, item));
                    }
                }
                case NAMED -> {
                    if (value instanceof MappingNode named) {
                        named.getValue().forEach(tuple -> addMapping(out, tuple.getValueNode()));
                    }
                }
            }
        }
        return out;
    }

    private static void addMapping(List<MappingNode> out, Node node) {
        if (node instanceof MappingNode mapping) {
            out.add(mapping);
        }
    }

    private static Node valueOf(MappingNode mapping, String key) {
        NodeTuple tuple = tuple(mapping, key);
        return tuple == null ? null : tuple.getValueNode();
    }

    private static NodeTuple first(List<MappingNode> mappings, String key) {
        for (MappingNode mapping : mappings) {
            NodeTuple tuple = tuple(mapping, key);
            if (tuple != null) {
                return tuple;
            }
        }
        return null;
    }

    private static NodeTuple tuple(MappingNode mapping, String key) {
        for (NodeTuple tuple : mapping.getValue()) {
            if (tuple.getKeyNode() instanceof ScalarNode name && name.getValue().equals(key)) {
                return tuple;
            }
        }
        return null;
    }

    /** A {@code # key:} line inside one of the mappings. */
    private boolean commentedOut(List<MappingNode> mappings, String key) {
        Pattern pattern = Pattern.compile("^\\s*#\\s*" + Pattern.quote(key) + ":");
        for (MappingNode mapping : mappings) {
            for (int line = mapping.getStartMark().getLine(); line <= mapping.getEndMark().getLine(); line++) {
                if (line < lines.size() && pattern.matcher(lines.get(line)).find()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The comment after a key's value, with the comment-only lines below it that are indented deeper than
     * the key (its continuation).
     */
    private String comment(NodeTuple tuple) {
        int keyLine = tuple.getKeyNode().getStartMark().getLine();
        Node value = tuple.getValueNode();
        boolean sameLine = value.getStartMark().getLine() == keyLine;
        int line = sameLine ? value.getEndMark().getLine() : keyLine;
        int column = sameLine ? value.getEndMark().getColumn() : tuple.getKeyNode().getEndMark().getColumn();
        String rest = lines.get(line).substring(Math.min(column, lines.get(line).length()));
        StringBuilder comment = new StringBuilder(rest.contains("#") ? rest.substring(rest.indexOf('#') + 1) : "");
        int keyColumn = tuple.getKeyNode().getStartMark().getColumn();
        for (int next = line + 1; next < lines.size(); next++) {
            String text = lines.get(next);
            String stripped = text.strip();
            if (!stripped.startsWith("#") || text.indexOf('#') <= keyColumn) {
                break;
            }
            comment.append(' ').append(stripped.substring(1));
        }
        return comment.toString();
    }

    private static void assertUnique(Section section) {
        assertThat(section.names()).as(section.name()).hasSize(section.keys().size() + section.sections().size());
        section.sections().forEach(ExamplePolicyTest::assertUnique);
    }

    private static int count(Section section) {
        int rows = 1 + section.keys().size();
        for (Section nested : section.sections()) {
            rows += count(nested);
        }
        return rows;
    }

    private static Node compose(String yaml) {
        LoaderOptions options = new LoaderOptions();
        return new Composer(new ParserImpl(new StreamReader(new StringReader(yaml)), options), new Resolver(), options)
                .getSingleNode();
    }

    private static String example() {
        try (InputStream in = PolicyLoader.class.getResourceAsStream(PolicyLoader.EXAMPLE_RESOURCE)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
