package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.nonce;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The metric catalogue ({@code docs/metrics.md}) against what {@code /metrics} exports after some traffic, and the
 * dashboard and alert rules under {@code deploy/} against both: a metric added without documentation, or a panel
 * or rule querying a name the gateway does not export (or a histogram suffix on a counter), fails here.
 */
class MetricCatalogueIT {

    private static final Path ROOT = Path.of("..");
    private static final Pattern NAME = Pattern.compile("\\bcachegate_[a-z0-9_]+");
    private static final Pattern TYPE = Pattern.compile("^# TYPE (cachegate_[a-z0-9_]+) (\\w+)", Pattern.MULTILINE);
    private static BackendSimulator sim;
    private static Gateway gateway;
    private static Path indexDir;

    @BeforeAll
    static void start() throws Exception {
        sim = BackendSimulator.start(SimulatorOptions.defaults());
        indexDir = Files.createTempDirectory("cachegate-metric-catalogue");
        gateway = Gateway.start(TestPolicies.parse("""
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2, shutdown_grace: 2s}
                backends:
                  - {name: main, urls: ["%s"], model_version: "llama@v1"}
                admission: {enabled: true}
                cache:
                  exact: {store: memory, ttl: 1h}
                  semantic: {enabled: true, path: "%s", ttl: 1h}
                routes:
                  - match: {model: "*"}
                    cache: {semantic: true}
                """.formatted(sim.baseUrl(), indexDir.toString().replace('\\', '/'))));
        String body = chat("catalogue " + nonce());
        RawHttp.post(gateway.port(), CHAT, body);
        RawHttp.post(gateway.port(), CHAT, body);
        RawHttp.post(gateway.port(), CHAT, chat("catalogue " + nonce(), "\"temperature\":1"));
    }

    @AfterAll
    static void stop() throws Exception {
        Closing.all(gateway, sim);
    }

    @Test
    void everyExportedMetric_isInTheCatalogue() throws Exception {
        Set<String> documented = documented();

        Set<String> undocumented = new TreeSet<>(exported().keySet());
        undocumented.removeIf(name -> documented.contains(name) || documented.contains(family(name))
                || documented.contains(family(name) + "_total"));

        assertThat(exported()).as("the traffic exported the gateway's metrics").hasSizeGreaterThan(20);
        assertThat(undocumented).as("exported but missing from docs/metrics.md").isEmpty();
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
        String scrape = RawHttp.get(gateway.adminPort(), "/metrics").body();
        Map<String, String> types = new TreeMap<>();
        Matcher m = TYPE.matcher(scrape);
        while (m.find()) {
            types.put(m.group(1).replaceFirst("_total$", ""), m.group(2));
        }
        return types;
    }

    private static Set<String> documented() throws Exception {
        return names(Files.readString(ROOT.resolve("docs/metrics.md")));
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
