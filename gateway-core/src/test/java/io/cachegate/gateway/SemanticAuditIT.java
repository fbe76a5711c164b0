package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.content;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.simulator.AnswerBook;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Audits and the error budget through the gateway, with the bundled model and a simulator that knows which
 * paraphrases mean the same ({@code --answers}): a served hit is right iff the backend would give its answer now.
 * "How can I reset my password?" is labelled apart from "How do I reset my password?" on purpose: a paraphrase whose
 * right answer differs, which a cosine decision serves and an audit catches.
 */
class SemanticAuditIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RESET = "How do I reset my password?";
    private static final String RESET_OTHER = "How can I reset my password?";
    private static final String HOURS = "What are your opening hours?";
    private static final String HOURS_PARAPHRASE = "What are your opening times?";
    private static final String[] RESET_PARAPHRASES = {"Help me reset my password",
        "Steps to reset my password?", "I forgot my password, how do I reset it?"};
    private static final String RESET_CLOSE = "How could I reset my password?";
    private static final String PIN = "How do I reset my PIN?";
    private static final String RESET_OTHER_AGAIN = "How can I reset my password??";
    private static final String RESET_AGAIN = "How do I reset my password??";

    private static BackendSimulator sim;
    private static Gateway audited;
    private static Gateway budgeted;
    private static Gateway rationed;
    private static Gateway streamed;

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory("cachegate-audit-it");
        Path answers = dir.resolve("answers.tsv");
        StringBuilder tsv = new StringBuilder("text\tlabel\n").append(RESET).append("\tpassword\n")
                .append(RESET_OTHER).append("\tpassword_other\n").append(HOURS).append("\thours\n")
                .append(HOURS_PARAPHRASE).append("\thours\n").append(RESET_CLOSE).append("\tpassword\n")
                .append(PIN).append("\tpin\n").append(RESET_OTHER_AGAIN).append("\tpassword_other\n")
                .append(RESET_AGAIN).append("\tpassword\n");
        for (String p : RESET_PARAPHRASES) {
            tsv.append(p).append("\tpassword\n");
        }
        Files.writeString(answers, tsv);
        sim = BackendSimulator.start(SimulatorOptions.defaults().withAnswers(AnswerBook.load(answers)));
        // Answers compared as text only (answer_similarity 1): the simulator's answers of two labels are unrelated
        // words, and the embedding comparison has a unit test of its own.
        audited = gateway(dir.resolve("audited"), "decision: cosine, threshold: 0.9",
                "{rate: 1, per_second: 1000, answer_similarity: 1, on_wrong: demote}");
        budgeted = gateway(dir.resolve("budgeted"), "threshold: 0.9, max_error_rate: 0.01, budget_delta: 0",
                "{rate: 0, answer_similarity: 1}");
        rationed = gateway(dir.resolve("rationed"), "decision: cosine, threshold: 0.9",
                "{rate: 1, per_second: 0.2, answer_similarity: 1}");
        streamed = gateway(dir.resolve("streamed"), "threshold: 0.9, max_error_rate: 0.01",
                "{rate: 1, per_second: 1000, answer_similarity: 1}");
    }

    private static Gateway gateway(Path index, String decision, String audit) throws Exception {
        return Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), """
                server: {admin_token: secret}
                tenants:
                  - {id: acme, api_keys: [acme-key]}
                cache:
                  exact: {store: memory, ttl: 1h}
                  semantic: {enabled: true, path: "%s", ttl: 1h, %s, audit: %s}
                routes:
                  - match: {model: "*"}
                    cache: {semantic: true}
                """.formatted(index.toString().replace('\\', '/'), decision, audit)));
    }

    @AfterAll
    static void stop() throws Exception {
        Closing.all(audited, budgeted, rationed, streamed, sim);
    }

    @Test
    void audits_recordVerdicts_andAWrongEntryIsDemoted() throws Exception {
        String system = "audited bot " + nonce();
        askAndIndex(audited, system, RESET);
        askAndIndex(audited, system, HOURS);

        HttpResponse<String> right = ask(audited, system, HOURS_PARAPHRASE);
        HttpResponse<String> wrong = ask(audited, system, RESET_OTHER);

        assertThat(header(right, "X-Cache-Layer")).isEqualTo("semantic");
        assertThat(header(wrong, "X-Cache-Layer")).as("the cosine decision serves the paraphrase").isEqualTo("semantic");
        awaitVerdicts(audited, "audit", 2);
        assertThat(verdicts(audited, "audit", "right")).isEqualTo(1);
        assertThat(verdicts(audited, "audit", "wrong")).isEqualTo(1);
        assertThat(metric(audited, "cachegate_semantic_entries_demoted_total", "action=\"demote\"")).isEqualTo(1);

        JsonNode route = stats(audited).path("semantic").path("verdicts").path("byRoute").path("0");
        assertThat(route.path("audited").asLong()).isEqualTo(2);
        assertThat(route.path("auditedWrong").asLong()).isEqualTo(1);
        assertThat(route.path("wrongHitRate").asDouble()).isEqualTo(0.5);
        assertThat(route.path("low").asDouble()).isBetween(0.05, 0.5);
        assertThat(route.path("high").asDouble()).isBetween(0.5, 0.95);
        assertThat(stats(audited).path("semantic").path("verdicts").path("byTenant").path("acme").path("audited").asLong())
                .isEqualTo(2);
        assertThat(metric(audited, "cachegate_semantic_wrong_hit_rate", "route=\"0\"", "bound=\"estimate\""))
                .isEqualTo(0.5);

        assertThat(xCache(ask(audited, system, RESET_CLOSE))).as("the demoted entry answers no paraphrase").isEqualTo("MISS");
        assertThat(xCache(ask(audited, system, RESET))).as("but still its own exact repeats").isEqualTo("HIT");
    }

    @Test
    void budget_exploresUncertainCandidates_learns_andThenServes() throws Exception {
        String system = "budgeted bot " + nonce();
        askAndIndex(budgeted, system, RESET);

        HttpResponse<String> uncertain = askAndIndex(budgeted, system, RESET_CLOSE);
        assertThat(xCache(uncertain)).as("similar, but one entry alone is no evidence: the budget sends it upstream")
                .isEqualTo("MISS");
        awaitVerdicts(budgeted, "explore", 1);
        assertThat(verdicts(budgeted, "explore", "right")).as("its fresh answer matched the candidate's").isEqualTo(1);

        // Two entries now give the same answer: their neighbourhood agrees, and paraphrases may be served.
        int served = 0;
        for (String paraphrase : RESET_PARAPHRASES) {
            HttpResponse<String> answer = askAndIndex(budgeted, system, paraphrase);
            assertThat(content(answer.body())).as("served or not, the right answer").isEqualTo(AnswerBook.answerText("password"));
            served += "semantic".equals(header(answer, "X-Cache-Layer")) ? 1 : 0;
        }

        HttpResponse<String> learned = ask(budgeted, system, RESET_OTHER.replace("can", "do").replace("?", "??"));
        assertThat(header(learned, "X-Cache-Layer")).as("entries that agree bring a paraphrase within budget (%d of the "
                + "three before it were served)", served).isEqualTo("semantic");
        assertThat(content(learned.body())).isEqualTo(AnswerBook.answerText("password"));
        assertThat(xCache(ask(budgeted, system, PIN))).as("a near question with another answer is not served")
                .isEqualTo("MISS");
    }

    @Test
    void budget_servesNoWrongHit_onAStreamWithAConfusableParaphrase() throws Exception {
        String system = "streamed bot " + nonce();
        List<String> stream = new ArrayList<>(List.of(RESET, RESET_OTHER, RESET_CLOSE));
        stream.addAll(List.of(RESET_PARAPHRASES));
        stream.addAll(List.of(RESET_OTHER_AGAIN, RESET_AGAIN, HOURS, HOURS_PARAPHRASE, RESET_OTHER_AGAIN + " ",
                RESET_AGAIN + " ", HOURS_PARAPHRASE + " "));
        int wrong = 0;
        int byMeaning = 0;
        for (String text : stream) {
            HttpResponse<String> r = askAndIndex(streamed, system, text);
            String truth = content(RawHttp.post(sim.port(), CHAT, "{\"model\":\"llama-3.1-8b\",\"messages\":[{"
                    + "\"role\":\"user\",\"content\":" + quote(text) + "}]}").body());
            if ("semantic".equals(header(r, "X-Cache-Layer"))) {
                byMeaning++;
                wrong += content(r.body()).equals(truth) ? 0 : 1;
            }
        }
        assertThat(wrong).as("semantic hits whose answer is not the query's own").isZero();
        assertThat(verdicts(streamed, "explore", "wrong")).as("the confusable pair was explored and judged wrong")
                .isPositive();
        // Under the anytime bound (budget_delta 0.05 by default) a dozen verdicts are thin evidence: nothing is
        // served by meaning, and the status page says the route's audits prove nothing yet.
        assertThat(byMeaning).as("hits by meaning on thin evidence").isZero();
        JsonNode semantic = stats(streamed).path("semantic");
        assertThat(semantic.path("maxErrorRate").asDouble()).isEqualTo(0.01);
        assertThat(semantic.path("budgetDelta").asDouble()).isEqualTo(0.05);
        JsonNode route = semantic.path("verdicts").path("byRoute").path("0");
        assertThat(route.path("explored").asLong()).isPositive();
        assertThat(route.path("audited").asLong()).isZero();
        assertThat(route.path("upperBound").asDouble()).isEqualTo(1.0);
        assertThat(route.path("withinBudget").asBoolean(true)).isFalse();
        // Beside them, the class watch: no class opened on a dozen verdicts, so it closed none and keeps none closed.
        JsonNode watch = semantic.path("watch").path("byRoute").path("0");
        assertThat(watch.isObject()).as("the route's watch: " + semantic.path("watch")).isTrue();
        assertThat(watch.path("closedNow").asInt(-1)).isZero();
        assertThat(watch.path("driftClosings").asLong(-1)).isZero();
        assertThat(watch.path("boundClosings").asLong(-1)).isZero();
        assertThat(watch.path("reopenings").asLong(-1)).isZero();
        String scrape = RawHttp.get(streamed.adminPort(), "/metrics").body();
        assertThat(scrape).contains("cachegate_semantic_budget_classes_closed{route=\"0\"} 0.0")
                .contains("cachegate_semantic_budget_watch_events_total{event=\"drift_closed\",route=\"0\"} 0.0")
                .contains("cachegate_semantic_budget_watch_events_total{event=\"bound_closed\",route=\"0\"} 0.0")
                .contains("cachegate_semantic_budget_watch_events_total{event=\"reopened\",route=\"0\"} 0.0");
    }

    @Test
    void audits_keepToTheirPerSecondBudget() throws Exception {
        String system = "rationed bot " + nonce();
        askAndIndex(rationed, system, HOURS);
        long start = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            assertThat(header(ask(rationed, system, HOURS_PARAPHRASE + " ".repeat(i + 1)), "X-Cache-Layer"))
                    .isEqualTo("semantic");
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        awaitVerdicts(rationed, "audit", 1);
        // 0.2 a second: one at once, one more per full 5 s the five hits took (none on a machine that is not slow).
        double audits = verdicts(rationed, "audit", "right");
        assertThat(audits).as("audits in " + seconds + " s").isBetween(1.0, 1.0 + seconds / 5);
        assertThat(metric(rationed, "cachegate_semantic_audits_skipped_total", "reason=\"budget\""))
                .isEqualTo(5 - audits);
    }

    @Test
    void audits_stopInOverload() throws Exception {
        Path dir = Files.createTempDirectory("cachegate-audit-overload");
        try (BackendSimulator slow = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(400).withTpotMs(1));
             Gateway gw = Gateway.start(GatewayFixture.basePolicy("""
                     backends:
                       - {name: main, urls: ["%s"], model_version: "llama@v1", max_concurrency: 1}
                     classes:
                       interactive: {priority: 0, max_queue_time: 30s}
                     admission:
                       enabled: true
                       overload: {enter_queue_age: 100ms, exit_queue_age: 10ms, enter_after: 0s, exit_after: 30s}
                     cache:
                       exact: {store: memory, ttl: 1h}
                       semantic: {enabled: true, path: "%s", decision: cosine, threshold: 0.9, audit: {rate: 1}}
                     routes:
                       - match: {model: "*"}
                         cache: {semantic: true}
                     """.formatted(slow.baseUrl(), dir.toString().replace('\\', '/'))))) {
            String system = "overloaded bot " + nonce();
            askAndIndex(gw, system, HOURS);
            ExecutorService clients = Executors.newFixedThreadPool(4);
            try {
                for (int i = 0; i < 4; i++) {
                    String sampled = "{\"model\":\"llama-3.1-8b\",\"temperature\":0.7,\"max_tokens\":5,"
                            + "\"messages\":[{\"role\":\"user\",\"content\":\"flood " + i + "\"}]}";
                    clients.submit(() -> RawHttp.post(gw.port(), CHAT, sampled));
                }
                assertThat(Poll.untilChecked(Duration.ofSeconds(10), () ->
                        metric(gw, "cachegate_admission_overloaded") == 1))
                        .as("overload mode entered").isTrue();

                assertThat(header(ask(gw, system, HOURS_PARAPHRASE), "X-Cache-Layer")).isEqualTo("semantic");

                assertThat(metric(gw, "cachegate_semantic_audits_skipped_total", "reason=\"overload\"")).isEqualTo(1);
            } finally {
                clients.shutdownNow();
            }
        }
    }

    private static double verdicts(Gateway gateway, String source, String verdict) {
        try {
            return metric(gateway, "cachegate_semantic_verdicts_total", "source=\"" + source + "\"",
                    "verdict=\"" + verdict + "\"");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitVerdicts(Gateway gateway, String source, int count) {
        assertThat(Poll.until(Duration.ofSeconds(20),
                () -> verdicts(gateway, source, "right") + verdicts(gateway, source, "wrong") >= count))
                .as(count + " " + source + " verdicts").isTrue();
    }

    private static JsonNode stats(Gateway gateway) throws Exception {
        return JSON.readTree(RawHttp.get(gateway.adminPort(), "/admin/stats", "Authorization", "Bearer secret").body());
    }

    private static HttpResponse<String> ask(Gateway gateway, String system, String question) throws Exception {
        HttpResponse<String> response = RawHttp.post(gateway.port(), CHAT,
                "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                        + quote(system) + "},{\"role\":\"user\",\"content\":" + quote(question) + "}]}",
                "Authorization", "Bearer acme-key");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    /** Asks, then waits until its write-back (and so its vector) is in the index. */
    private static HttpResponse<String> askAndIndex(Gateway gateway, String system, String question) throws Exception {
        HttpResponse<String> response = ask(gateway, system, question);
        CacheCalls.awaitIndexed(gateway);
        return response;
    }
}
