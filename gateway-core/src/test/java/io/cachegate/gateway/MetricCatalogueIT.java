package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.nonce;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The metric catalogue (the table in docs/metrics.md: name, type, labels, meaning) against what {@code /metrics} exports
 * after some traffic, and the dashboard and alert rules under {@code deploy/} against both: a metric added without
 * a row, a row whose type or labels differ from the export, or a panel or rule querying a name the gateway does not
 * export (or a histogram suffix on a counter), fails here. The rows of what this traffic exports are written to
 * {@code target/metric-catalogue.md} (meaning from the metric's own description) to copy from.
 */
class MetricCatalogueIT {

    private static final Path ROOT = Path.of("..");
    private static final Pattern NAME = Pattern.compile("\\bcachegate_[a-z0-9_]+");
    private static final Pattern TYPE = Pattern.compile("^# TYPE (cachegate_[a-z0-9_]+) (\\w+)", Pattern.MULTILINE);
    private static final Pattern HELP = Pattern.compile("^# HELP (cachegate_[a-z0-9_]+) (.*)$", Pattern.MULTILINE);
    private static final Pattern SAMPLE = Pattern.compile("^(cachegate_[a-z0-9_]+)(?:\\{([^}]*)})? ", Pattern.MULTILINE);
    private static final Pattern LABEL = Pattern.compile("([a-z_]+)=\"");
    /** A catalogue row: | `name` | type | `label`, `label` | meaning |. */
    private static final Pattern ROW = Pattern.compile("^\\| `(cachegate_[a-z0-9_]+)` \\| (\\w+) \\| ([^|]*) \\|",
            Pattern.MULTILINE);

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            tenants:
              - {id: acme, api_keys: [acme-key], limits: {requests_per_second: 1000, tokens_per_minute: 10000000}}
            admission: {enabled: true}
            prices:
              "*": {input: 1, output: 2}
            log: {access: off}
            cache:
              semantic: {enabled: true, path: "${DIR}", ttl: 1h, speculative_upstream: true}
            routes:
              - match: {model: "*"}
                cache: {semantic: true}
            """);

    @BeforeAll
    static void traffic() throws Exception {
        String body = chat("catalogue " + nonce());
        String[] key = {"Authorization", "Bearer acme-key"};
        RawHttp.post(fixture.port(), CHAT, body, key);
        RawHttp.post(fixture.port(), CHAT, body, key);
        RawHttp.post(fixture.port(), CHAT, chat("catalogue " + nonce(), "\"temperature\":1"), key);
    }

    @Test
    void everyExportedMetric_hasARow_withItsTypeAndLabels() throws Exception {
        Map<String, String> rows = rows();
        Map<String, String> exported = exported();
        Map<String, Set<String>> labels = labels();
        writeRows(exported, labels);

        assertThat(exported).as("the traffic exported the gateway's metrics").hasSizeGreaterThan(20);
        assertThat(new TreeSet<>(exported.keySet())).as("exported but without a row in docs/metrics.md's catalogue")
                .allMatch(name -> rows.containsKey(name) || rows.containsKey(name + "_total"));
        for (Map.Entry<String, String> e : exported.entrySet()) {
            String row = rows.containsKey(e.getKey()) ? rows.get(e.getKey()) : rows.get(e.getKey() + "_total");
            assertThat(row).as(e.getKey() + ": type, then labels").isEqualTo(e.getValue() + "|"
                    + String.join(",", labels.getOrDefault(e.getKey(), Set.of())));
        }
    }

    @Test
    void dashboardAndAlertRules_queryOnlyDocumentedMetrics_withSuffixesOfTheirType() throws Exception {
        Set<String> documented = documented();
        Map<String, String> exported = exported();
        for (String file : new String[] {"deploy/grafana/cachegate.json", "deploy/prometheus/alerts.yml"}) {
            Set<String> used = names(Files.readString(ROOT.resolve(file)));
            assertThat(used).as(file + " queries metrics").isNotEmpty();
            for (String name : used) {
                String family = family(name);
                assertThat(documented).as(file + ": " + name + " is documented").containsAnyOf(family, family + "_total",
                        name);
                String type = exported.get(family);
                if (type != null && !name.equals(family)) {
                    String suffix = name.substring(family.length());
                    assertThat(type).as(file + ": " + name + " on a " + type)
                            .isIn(suffix.equals("_total") ? Set.of("counter") : Set.of("histogram", "summary"));
                }
            }
        }
    }

    /** Metric families in the scrape, by name without the {@code _total} a counter's samples carry. */
    private static Map<String, String> exported() throws Exception {
        String scrape = RawHttp.get(fixture.adminPort(), "/metrics").body();
        Map<String, String> types = new TreeMap<>();
        Matcher m = TYPE.matcher(scrape);
        while (m.find()) {
            if (!m.group(1).endsWith("_max")) { // a histogram's maximum, exported as a gauge beside it
                types.put(m.group(1).replaceFirst("_total$", ""), m.group(2));
            }
        }
        return types;
    }

    private static Set<String> documented() throws Exception {
        return rows().keySet();
    }

    /** The catalogue in docs/metrics.md: name to "type|label,label" (labels sorted). */
    private static Map<String, String> rows() throws Exception {
        Map<String, String> rows = new TreeMap<>();
        Matcher m = ROW.matcher(Files.readString(ROOT.resolve("docs/metrics.md")));
        while (m.find()) {
            Set<String> labels = new TreeSet<>();
            Matcher l = Pattern.compile("`([a-z_]+)`").matcher(m.group(3));
            while (l.find()) {
                labels.add(l.group(1));
            }
            rows.put(m.group(1), m.group(2) + "|" + String.join(",", labels));
        }
        return rows;
    }

    /** The labels each exported family's samples carry (without a histogram's {@code le}). */
    private static Map<String, Set<String>> labels() throws Exception {
        String scrape = RawHttp.get(fixture.adminPort(), "/metrics").body();
        Map<String, Set<String>> labels = new TreeMap<>();
        Matcher m = SAMPLE.matcher(scrape);
        while (m.find()) {
            Set<String> names = labels.computeIfAbsent(family(m.group(1)), k -> new TreeSet<>());
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    if (!l.group(1).equals("le")) {
                        names.add(l.group(1));
                    }
                }
            }
        }
        return labels;
    }

    /** The rows of what this traffic exported, meaning from the metric's description, to copy into docs/metrics.md. */
    private static void writeRows(Map<String, String> exported, Map<String, Set<String>> labels) throws Exception {
        String scrape = RawHttp.get(fixture.adminPort(), "/metrics").body();
        Map<String, String> help = new TreeMap<>();
        Matcher m = HELP.matcher(scrape);
        while (m.find()) {
            help.putIfAbsent(family(m.group(1)), m.group(2).strip());
        }
        StringBuilder out = new StringBuilder("| Metric | Type | Labels | Meaning |\n|---|---|---|---|\n");
        for (Map.Entry<String, String> e : exported.entrySet()) {
            String name = e.getValue().equals("counter") ? e.getKey() + "_total" : e.getKey();
            out.append("| `").append(name).append("` | ").append(e.getValue()).append(" | ")
                    .append(String.join(", ", labels.getOrDefault(e.getKey(), Set.of()).stream()
                            .map(l -> "`" + l + "`").toList()))
                    .append(" | ").append(help.getOrDefault(e.getKey(), "")).append(" |\n");
        }
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target/metric-catalogue.md"), out.toString());
    }

    private static Set<String> names(String text) {
        Set<String> names = new TreeSet<>();
        Matcher m = NAME.matcher(text);
        while (m.find()) {
            names.add(m.group().replaceFirst("_$", ""));
        }
        return names;
    }

    /** The family a sample name belongs to: without {@code _total}, {@code _bucket}, {@code _count}, {@code _sum}. */
    private static String family(String sample) {
        return sample.replaceFirst("_(total|bucket|count|sum|max)$", "");
    }
}
