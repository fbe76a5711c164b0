package io.cachegate.cli.analyze;

import static io.cachegate.cli.analyze.TrafficAnalyzerTest.analyze;
import static io.cachegate.cli.analyze.TrafficAnalyzerTest.map;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.semantic.Embedder;
import io.cachegate.cache.semantic.MicroBatchingEmbedder;
import io.cachegate.config.SemanticCacheSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Near-duplicates with the bundled embedder: rephrased questions found, other questions and other scopes not. */
class NearDuplicateShareTest {

    /** Written for this test: each second question asks the first again in other words. */
    private static final String[][] PARAPHRASES = {
        {"How do I reset my password?", "How can I reset my password?"},
        {"What time does the store open on Sundays?", "When does the store open on Sunday?"},
        {"How long does shipping to Canada take?", "How long does delivery to Canada take?"},
        {"Can I return a product after thirty days?", "Is it possible to return a product after thirty days?"},
        {"What is the warranty period for the lawn mower?", "What's the warranty period of the lawn mower?"},
        {"Do you ship to Norway?", "Do you deliver to Norway?"},
    };
    private static final String[] UNRELATED = {
        "Which payment methods do you accept?", "Where is your head office located?",
        "How do I unsubscribe from the newsletter?", "Is the hedge trimmer battery replaceable?",
        "What size of gloves should I buy?", "Can I pick up my order in person?",
        "How do I clean the blades of the secateurs?", "Are your products made in Europe?",
    };

    private static MicroBatchingEmbedder embedder;

    @BeforeAll
    static void start() {
        embedder = MicroBatchingEmbedder.start(SemanticCacheSettings.EmbedderSettings.defaults());
    }

    @AfterAll
    static void stop() {
        embedder.close();
    }

    @Test
    void analyze_paraphrases_areNearDuplicates_otherQuestionsAndScopesAreNot() throws Exception {
        List<String> lines = new ArrayList<>();
        for (String[] pair : PARAPHRASES) {
            lines.add(chat(null, pair[0]));
        }
        for (String question : UNRELATED) {
            lines.add(chat(null, question));
        }
        for (String[] pair : PARAPHRASES) {
            lines.add(chat(null, pair[1]));
        }
        lines.add(chat(null, PARAPHRASES[0][0])); // an exact repeat: the exact layer's, not a near-duplicate
        lines.add(chat("Answer in French.", PARAPHRASES[0][1])); // another scope: nothing earlier to match
        int n = lines.size(); // 22

        Map<String, Object> all = map(analyze(String.join("\n", lines), TrafficAnalyzerTest.settings(),
                Optional.<Embedder>of(embedder), TrafficAnalyzerTest.textless()), "overall");

        Map<String, Object> semantic = map(all, "semantic");
        assertThat(semantic.get("candidates")).isEqualTo((long) n - 1);
        assertThat(semantic.get("compared")).isEqualTo((long) n - 3); // the first request and the French one had no peer
        Map<String, Object> near = map(semantic, "near_duplicate_share");
        long at80 = count(near.get("0.80"), n);
        long at85 = count(near.get("0.85"), n);
        long at95 = count(near.get("0.95"), n);
        // Six rephrasings; one unrelated question may sit as close as 0.80 to another with this small model.
        assertThat(at80).isBetween(6L, 7L);
        assertThat(at85).isEqualTo(6L);
        assertThat(at95).isLessThanOrEqualTo(at85);
        // Projected at the test's operating threshold 0.85: every rephrasing, all deterministic.
        Map<String, Object> projected = map(map(all, "projected"), "semantic");
        assertThat(projected.get("hits")).isEqualTo(at85);
        assertThat(map(map(all, "projected"), "exact").get("hits")).isEqualTo(1L);
    }

    private static long count(Object share, int n) {
        return Math.round(((Number) share).doubleValue() * n);
    }

    private static String chat(String system, String question) {
        String messages = (system == null ? "" : "{\"role\":\"system\",\"content\":\"" + system + "\"},")
                + "{\"role\":\"user\",\"content\":\"" + question + "\"}";
        return "{\"model\":\"m1\",\"temperature\":0,\"messages\":[" + messages + "]}";
    }
}
