package io.cachegate.cli.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.admission.TokenEstimator;
import io.cachegate.cache.semantic.Embedder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class TrafficAnalyzerTest {

    static final int BLOCK = 16;

    @Test
    void analyze_generatedLog_reportsTheTrueShares() throws Exception {
        GeneratedLog log = new GeneratedLog();

        Map<String, Object> doc = analyze(String.join("\n", log.lines), settings(), Optional.empty(), textless());

        int n = GeneratedLog.TOTAL; // 90 = 40 bases + 10 exact + 6 whitespace + 4 case + 20 sampled + 10 other tenant
        Map<String, Object> all = map(doc, "overall");
        assertThat(all.get("requests")).isEqualTo((long) n);
        assertThat(all.get("deterministic_share")).isEqualTo(round((n - GeneratedLog.SAMPLED) / (double) n));
        assertThat(all.get("exact_repeat_share")).isEqualTo(round(10.0 / n));
        assertThat(all.get("whitespace_repeat_share")).isEqualTo(round((10.0 + 6) / n));
        assertThat(all.get("case_repeat_share")).isEqualTo(round((10.0 + 6 + 4) / n));
        Map<String, Object> prefix = map(all, "prefix");
        assertThat(prefix.get("shared_chars")).isEqualTo(log.expectedPrefixChars(BLOCK));
        assertThat(prefix.get("prompt_chars")).isEqualTo(log.promptChars());
        // The exact layer answers the ten reordered repeats: all deterministic, max_tokens 50 each.
        Map<String, Object> exact = map(map(all, "projected"), "exact");
        assertThat(exact.get("hits")).isEqualTo(10L);
        assertThat(exact.get("tokens_out_saved")).isEqualTo(10L * GeneratedLog.MAX_TOKENS);
        assertThat(exact.get("tokens_in_saved")).isEqualTo(promptTokensOfFirstBases(10));
        assertThat(map(map(all, "projected"), "semantic")).isNull(); // no embedder
        // Per tenant: the second tenant's identical questions are not repeats (keys are per tenant) ...
        List<Map<String, Object>> groups = list(doc, "groups");
        assertThat(groups).extracting(g -> g.get("tenant") + "/" + g.get("model"))
                .containsExactly("default/m1", "beta/m1");
        assertThat(groups.get(1).get("exact_repeat_share")).isEqualTo(0.0);
        // ... but their prompts are a prefix the router already holds, whole blocks of them.
        assertThat((Long) map(groups.get(1), "prefix").get("shared_chars")).isPositive();
        assertThat(doc.get("malformed")).isEqualTo(Map.of("count", 0L, "first", List.of()));
    }

    @Test
    void analyze_sharedSystemPrompt_reusesItsWholeBlocks() throws Exception {
        // "m1\n" + 61 characters + "\n" = 65: four complete 16-character blocks shared, the fifth differs.
        String system = "S".repeat(61);
        String a = "{\"model\":\"m1\",\"messages\":[{\"role\":\"system\",\"content\":\"" + system
                + "\"},{\"role\":\"user\",\"content\":\"first question of this test\"}]}";
        String b = a.replace("first", "other");

        Map<String, Object> all = map(analyze(a + "\n" + b, settings(), Optional.empty(), textless()), "overall");

        assertThat(map(all, "prefix").get("shared_chars")).isEqualTo(64L);
        assertThat(all.get("deterministic_share")).isEqualTo(0.0); // no temperature: OpenAI's default 1 samples
    }

    @Test
    void analyze_malformedLines_countedWithLineNumbers_blankLinesSkipped() throws Exception {
        String good = "{\"model\":\"m\",\"prompt\":\"hi\",\"temperature\":0}";
        String text = String.join("\n", good, "", "not json", "{\"model\":\"m\"}", "   ",
                "{\"model\":\"m\",\"messages\":\"nope\"}", "[1,2]", good, "{\"model\":\"m\",\"prompt\":\"hi\"", good);

        Map<String, Object> doc = analyze(text, settings(), Optional.empty(), textless());

        assertThat(doc.get("requests")).isEqualTo(3L);
        assertThat(doc.get("blank_lines")).isEqualTo(2L);
        Map<String, Object> malformed = map(doc, "malformed");
        assertThat(malformed.get("count")).isEqualTo(5L);
        assertThat(list(malformed, "first")).extracting(m -> m.get("line")).containsExactly(3L, 4L, 6L, 7L, 9L);
        assertThat(list(malformed, "first")).extracting(m -> (String) m.get("reason"))
                .anySatisfy(r -> assertThat(r).contains("not valid JSON"))
                .anySatisfy(r -> assertThat(r).contains("no messages, prompt or input"))
                .anySatisfy(r -> assertThat(r).contains("'messages' must be an array"));
        assertThat(map(doc, "overall").get("exact_repeat_share")).isEqualTo(round(2.0 / 3));
    }

    @Test
    void analyze_textField_wrapsItAsOneUserMessage_andAssumedTemperatureMakesItCacheable() throws Exception {
        String text = String.join("\n", "{\"session_id\":1,\"input\":\"hello there\"}",
                "{\"session_id\":2,\"input\":\"hello there\"}", "{\"session_id\":3,\"other\":\"x\"}");
        RequestLogParser parser = new RequestLogParser(Optional.of("input"), "llama", OptionalDouble.of(0));

        Map<String, Object> doc = analyze(text, settings(), Optional.empty(), parser);

        Map<String, Object> all = map(doc, "overall");
        assertThat(all.get("requests")).isEqualTo(2L);
        assertThat(all.get("deterministic_share")).isEqualTo(1.0);
        assertThat(all.get("exact_repeat_share")).isEqualTo(0.5);
        assertThat(list(doc, "groups").get(0).get("model")).isEqualTo("llama");
        assertThat(list(map(doc, "malformed"), "first").get(0).get("reason")).isEqualTo("no text field 'input'");
    }

    @Test
    void analyze_sensitiveRepeat_isARepeat_butNoProjectedHit() throws Exception {
        // The default route's cache.sensitive is no_store: the gateway bypasses the cache for an e-mail address.
        String mail = "{\"model\":\"m\",\"prompt\":\"Write to jane.doe@example.com about the order\",\"temperature\":0}";
        String clean = "{\"model\":\"m\",\"prompt\":\"Write to the customer about the order\",\"temperature\":0}";

        Map<String, Object> all = map(analyze(String.join("\n", mail, mail, clean, clean), settings(), Optional.empty(),
                textless()), "overall");

        assertThat(all.get("sensitive_share")).isEqualTo(0.5);
        assertThat(all.get("exact_repeat_share")).isEqualTo(0.5);
        assertThat(map(map(all, "projected"), "exact").get("hits")).isEqualTo(1L); // the clean repeat only
    }

    @Test
    void analyze_manyTenants_beyondTheGroupCap_summedUnderOther() throws Exception {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            text.append("{\"tenant\":\"t").append(i).append("\",\"body\":{\"model\":\"m\",\"prompt\":\"p\"}}\n");
        }
        AnalyzerSettings capped = new AnalyzerSettings(BLOCK, 1000, 1000, 100, 2, List.of(0.9), 0.9, 16);

        List<Map<String, Object>> groups = list(analyze(text.toString(), capped, Optional.empty(), textless()), "groups");

        assertThat(groups).extracting(g -> g.get("tenant")).containsExactly("t0", "t1", "(other)");
        assertThat(groups.get(2).get("requests")).isEqualTo(3L);
    }

    static AnalyzerSettings settings() {
        return new AnalyzerSettings(BLOCK, 100_000, 100_000, 1000, 100, List.of(0.80, 0.85, 0.90, 0.95), 0.85, 256);
    }

    static RequestLogParser textless() {
        return new RequestLogParser(Optional.empty(), "unknown", OptionalDouble.empty());
    }

    static Map<String, Object> analyze(String text, AnalyzerSettings settings, Optional<Embedder> embedder,
                                       RequestLogParser parser) throws IOException, InterruptedException {
        LogAnalysis run = new LogAnalysis(new TrafficAnalyzer(settings, embedder.isPresent()), parser, embedder,
                1 << 20);
        try (InputStream in = new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8))) {
            run.run(in, Optional.empty());
        }
        AnalysisReport report = new AnalysisReport("test", run, embedder.map(Embedder::modelId), 1, 0, 0);
        assertThat(report.text()).contains("share of requests", "projected savings"); // renders whatever the figures
        return report.document();
    }

    private static long promptTokensOfFirstBases(int count) {
        TokenEstimator estimator = TokenEstimator.heuristic();
        long sum = 0;
        for (int i = 0; i < count; i++) {
            String prompt = (i % 2 == 0 ? GeneratedLog.SYSTEM + "\n" : "") + GeneratedLog.question(i) + "\n";
            sum += estimator.estimate(prompt);
        }
        return sum;
    }

    static double round(double share) {
        return Math.round(share * 10_000) / 10_000.0;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Map<String, Object> m, String key) {
        return (Map<String, Object>) m.get(key);
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> list(Map<String, Object> m, String key) {
        return (List<Map<String, Object>>) m.get(key);
    }
}
