package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.kv.KvTestPublisher;
import io.cachegate.kv.PromptTokens;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.simulator.SimulatorReplicas;
import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code balance: kv_aware} through the gateway: replicas' KV-cache events (from vLLM-style publishers on loopback)
 * decide where a prompt goes, the index's size is a metric per replica, and without events it is prefix affinity.
 */
class KvAwareRoutingIT {

    private static final String CHAT = "/v1/chat/completions";
    private static final String SYSTEM = "You are the support assistant of a bank. Answer in two sentences. ".repeat(30);

    private static String body(String question) {
        return "{\"model\":\"llama-3.1-8b\",\"temperature\":0.7,\"messages\":[{\"role\":\"system\",\"content\":\""
                + SYSTEM + "\"},{\"role\":\"user\",\"content\":\"" + question + "\"}]}";
    }

    private static String kvPolicy(List<KvTestPublisher> publishers) {
        StringBuilder events = new StringBuilder();
        for (KvTestPublisher p : publishers) {
            events.append(events.length() == 0 ? "" : ", ").append('"').append(p.publish()).append('"');
        }
        return "    kv_events: [" + events + "]\n    tokenizer: bundled\n";
    }

    @Test
    void promptsGoWhereTheEnginesSayTheirPrefixIs() throws Exception {
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(3, SimulatorOptions.defaults());
             KvTestPublisher a = new KvTestPublisher(10_000);
             KvTestPublisher b = new KvTestPublisher(10_000);
             KvTestPublisher c = new KvTestPublisher(10_000);
             PromptTokens tokens = PromptTokens.load(PromptTokens.BUNDLED, Optional.empty())) {
            // Replica b (the second URL) holds the system prompt's blocks; a holds an unrelated prompt.
            int[] prompt = tokens.chat(List.of(new PromptTokens.Message("system", SYSTEM),
                    new PromptTokens.Message("user", "anything")));
            int blocks = SYSTEM.length() / 8 / 16; // well inside the system prompt's tokens
            int[] held = Arrays.copyOf(prompt, blocks * 16);
            long[] hashes = new long[blocks];
            for (int i = 0; i < blocks; i++) {
                hashes[i] = 1_000 + i;
            }
            b.send(new KvTestPublisher.Events().stored(hashes, null, held, 16, "GPU").pack());
            a.send(new KvTestPublisher.Events().stored(new long[] {7}, null, new int[16], 16, "GPU").pack());
            try (Gateway gw = Gateway.start(RoutingIT.policy(sims.baseUrls(), "kv_aware", kvPolicy(List.of(a, b, c))))) {
                String replicaB = sims.baseUrls().get(1).toString();
                assertThat(Poll.until(Duration.ofSeconds(20), () -> metric(gw, "cachegate_kv_index_blocks",
                        "replica=\"" + replicaB + "\"") == blocks)).as("the index bootstrapped from b's replay").isTrue();

                for (int i = 0; i < 6; i++) {
                    assertThat(RawHttp.post(gw.port(), CHAT, body("question " + i)).statusCode()).isEqualTo(200);
                }
                assertThat(sims.stats(1).requests()).as("every request went to the replica holding the prefix")
                        .isEqualTo(6);
                assertThat(metric(gw, "cachegate_kv_index_blocks", "replica=\"" + sims.baseUrls().get(0) + "\""))
                        .isEqualTo(1);
                assertThat(metric(gw, "cachegate_kv_event_batches_total", "backend=\"main\"")).isEqualTo(2);

                // b evicts it all and c computes it: the prompts follow to c, where prefix affinity (which only
                // remembers where it sent them) would have stayed on b.
                b.send(new KvTestPublisher.Events().removed(hashes, "GPU").pack());
                c.send(new KvTestPublisher.Events().stored(hashes, null, held, 16, "GPU").pack());
                String replicaC = sims.baseUrls().get(2).toString();
                assertThat(Poll.until(Duration.ofSeconds(20), () -> metric(gw, "cachegate_kv_index_blocks",
                        "replica=\"" + replicaB + "\"") == 0 && metric(gw, "cachegate_kv_index_blocks",
                        "replica=\"" + replicaC + "\"") == blocks)).isTrue();
                for (int i = 0; i < 6; i++) {
                    assertThat(RawHttp.post(gw.port(), CHAT, body("later " + i)).statusCode()).isEqualTo(200);
                }
                assertThat(sims.stats(2).requests()).isEqualTo(6);
                assertThat(sims.stats(1).requests()).isEqualTo(6);
            }
        }
    }

    @Test
    void againstTheSimulatorsOwnEventsTheIndexAgreesAndPromptsFindTheirPrefix() throws Exception {
        SimulatorOptions options = SimulatorOptions.defaults().withPrefixCacheBlocks(400)
                .withKvEvents(SimulatorOptions.KvEvents.on());
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(3, options)) {
            StringBuilder events = new StringBuilder();
            for (int i = 0; i < 3; i++) {
                events.append(i == 0 ? "" : ", ").append('"').append(sims.stats(i).kvEvents().endpoint()).append('"');
            }
            try (Gateway gw = Gateway.start(RoutingIT.policy(sims.baseUrls(), "kv_aware",
                    "    kv_events: [" + events + "]\n    tokenizer: bundled\n"))) {
                // Three system prompts, a few questions each, spread over time
                for (int round = 0; round < 4; round++) {
                    for (int group = 0; group < 3; group++) {
                        String body = "{\"model\":\"llama-3.1-8b\",\"temperature\":0.7,\"messages\":["
                                + "{\"role\":\"system\",\"content\":\"" + ("Group " + group + " rules. ").repeat(80)
                                + "\"},{\"role\":\"user\",\"content\":\"question " + round + "\"}]}";
                        assertThat(RawHttp.post(gw.port(), CHAT, body).statusCode()).isEqualTo(200);
                        Thread.sleep(30);
                    }
                }
                for (int i = 0; i < 3; i++) {
                    int replica = i;
                    String label = "replica=\"" + sims.baseUrls().get(i) + "\"";
                    assertThat(Poll.until(Duration.ofSeconds(20), () -> metric(gw, "cachegate_kv_index_blocks", label)
                            == sims.stats(replica).kvEvents().blocks()))
                            .as("the gateway's index of replica %d equals the replica's own count", i).isTrue();
                }
                long hit = 0;
                long queried = 0;
                for (int i = 0; i < 3; i++) {
                    hit += sims.stats(i).prefixBlocksHit();
                    queried += sims.stats(i).prefixBlocksQueried();
                }
                assertThat((double) hit / queried).as("after each group's first request its prefix is found")
                        .isGreaterThan(0.6);
                // Admission charged the uncached tokens the events showed; the simulator's answers say how many
                // it really prefilled (usage.prompt_tokens_details.cached_tokens).
                double actual = metric(gw, "cachegate_admission_uncached_actual_tokens_total", "backend=\"main\"");
                double error = metric(gw, "cachegate_admission_uncached_error_tokens_total", "backend=\"main\"");
                assertThat(actual).isPositive();
                assertThat(error / actual).as("the cost model's error against the engine's own count").isLessThan(0.1);
            }
        }
    }

    @Test
    void aRequestWhosePrefixIsBeingComputedGoesWhereItIsComputedInsteadOfComputingItAgain() throws Exception {
        // 3 ms per prompt token: the shared prompt's prefill takes about a second, and its blocks are published only
        // when it is over. Sent meanwhile, the second request must go to the replica computing them (this gateway's
        // own send counts them there), whose engine finds them and waits for that prefill, as vLLM's does.
        SimulatorOptions options = SimulatorOptions.defaults().withPrefixCacheBlocks(400).withTtftMs(10)
                .withPrefillMsPerToken(3).withTpotMs(1).withDefaultMaxTokens(4)
                .withKvEvents(SimulatorOptions.KvEvents.on());
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(3, options)) {
            StringBuilder events = new StringBuilder();
            for (int i = 0; i < 3; i++) {
                events.append(i == 0 ? "" : ", ").append('"').append(sims.stats(i).kvEvents().endpoint()).append('"');
            }
            try (Gateway gw = Gateway.start(RoutingIT.policy(sims.baseUrls(), "kv_aware",
                    "    kv_events: [" + events + "]\n    tokenizer: bundled\n"))) {
                // Events have to be live before the gateway routes by them: a short prompt's store does it.
                assertThat(RawHttp.post(gw.port(), CHAT, "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":"
                        + "\"user\",\"content\":\"" + "warm up the index ".repeat(20) + "\"}]}").statusCode())
                        .isEqualTo(200);
                assertThat(Poll.until(Duration.ofSeconds(20), () -> metric(gw, "cachegate_kv_index_blocks",
                        "replica=\"" + sims.baseUrls().get(0) + "\"") + metric(gw, "cachegate_kv_index_blocks",
                        "replica=\"" + sims.baseUrls().get(1) + "\"") + metric(gw, "cachegate_kv_index_blocks",
                        "replica=\"" + sims.baseUrls().get(2) + "\"") > 0)).isTrue();

                CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> post(gw,
                        body("first question")));
                assertThat(Poll.until(Duration.ofSeconds(20), () -> requests(sims) == 2)).isTrue();
                // Until its answer begins, the first's prompt is the prefill backlog of the replica computing it.
                assertThat(prefillBacklog(gw)).as("about a second of prefill under way").isGreaterThan(100);
                HttpResponse<String> second = post(gw, body("second question"));

                assertThat(second.statusCode()).isEqualTo(200);
                assertThat(first.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
                long hit = 0;
                for (int i = 0; i < 3; i++) {
                    hit += sims.stats(i).prefixBlocksHit();
                }
                assertThat(hit).as("the second found the system prompt the first computed")
                        .isGreaterThanOrEqualTo(SYSTEM.length() / 8 / 16);
                long waited = 0;
                for (int i = 0; i < 3; i++) {
                    waited += sims.stats(i).prefixWaitRequests();
                }
                assertThat(waited).as("on the replica computing it, while it was computed").isEqualTo(1);
                assertThat(prefillBacklog(gw)).as("answered: no prefill left on any replica").isZero();
            }
        }
    }

    private static HttpResponse<String> post(Gateway gw, String body) {
        try {
            return RawHttp.post(gw.port(), CHAT, body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The prefill backlog of backend main's replicas, summed, from {@code /admin/stats}. */
    private static long prefillBacklog(Gateway gw) throws Exception {
        long sum = 0;
        for (var replica : CacheCalls.json(RawHttp.get(gw.adminPort(), "/admin/stats").body()).path("replicas")
                .path("main")) {
            sum += replica.path("prefillBacklogTokens").asLong(-1_000_000);
        }
        return sum;
    }

    private static long requests(SimulatorReplicas sims) {
        long n = 0;
        for (int i = 0; i < 3; i++) {
            n += sims.stats(i).requests();
        }
        return n;
    }

    @Test
    void aGatewayStartingAfterTheReplayTurnedOverTakesItsSiblingsIndex() throws Exception {
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(1, SimulatorOptions.defaults());
             KvTestPublisher publisher = new KvTestPublisher(10_000);
             Gateway first = Gateway.start(RoutingIT.policy(sims.baseUrls(), "kv_aware",
                     kvPolicy(List.of(publisher))))) {
            String replica = "replica=\"" + sims.baseUrls().get(0) + "\"";
            // The first gateway hears every block, live or (while its subscription starts) from the replay.
            assertThat(Poll.until(Duration.ofSeconds(20), () -> {
                publisher.send(new KvTestPublisher.Events().stored(new long[] {0}, null, chainTokens(0), 16, "GPU")
                        .pack());
                return metric(first, "cachegate_kv_index_blocks", replica) == 1;
            })).isTrue();
            for (int h = 1; h < 10; h++) {
                publisher.send(new KvTestPublisher.Events().stored(new long[] {h}, (long) h - 1, chainTokens(h), 16,
                        "GPU").pack());
            }
            assertThat(Poll.until(Duration.ofSeconds(20), () -> metric(first, "cachegate_kv_index_blocks", replica)
                    == 10)).isTrue();
            publisher.keep(2); // the replay turns over: a gateway starting now gets only the last 2 batches from it
            assertThat(RawHttp.get(first.adminPort(), "/admin/kv-index?backend=nope").statusCode()).isEqualTo(404);
            String sibling = "    kv_siblings: [\"http://127.0.0.1:" + first.adminPort() + "\"]\n";
            try (Gateway late = Gateway.start(RoutingIT.policy(sims.baseUrls(), "kv_aware",
                    kvPolicy(List.of(publisher)) + sibling))) {
                assertThat(Poll.until(Duration.ofSeconds(20), () -> metric(late, "cachegate_kv_index_blocks", replica)
                        == 10)).as("all ten blocks, though the replay holds only the last two").isTrue();
            }
        }
    }

    private static int[] chainTokens(int block) {
        int[] tokens = new int[16];
        Arrays.fill(tokens, 1000 + block);
        return tokens;
    }

    @Test
    void withoutEventsItIsPrefixAffinity() throws Exception {
        // Endpoints where nothing answers (publishers closed again): a replica whose replay answers, even with
        // nothing, is known to hold nothing, and kv_aware routes on that.
        String silent;
        try (KvTestPublisher a = new KvTestPublisher(10);
             KvTestPublisher b = new KvTestPublisher(10);
             KvTestPublisher c = new KvTestPublisher(10)) {
            silent = kvPolicy(List.of(a, b, c));
        }
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(3, SimulatorOptions.defaults());
             Gateway gw = Gateway.start(RoutingIT.policy(sims.baseUrls(), "kv_aware", silent))) {
            for (int i = 0; i < 6; i++) {
                assertThat(RawHttp.post(gw.port(), CHAT, body("silent " + i)).statusCode()).isEqualTo(200);
            }
            List<Long> perReplica = List.of(sims.stats(0).requests(), sims.stats(1).requests(),
                    sims.stats(2).requests());
            assertThat(perReplica).as("one replica took the shared prompt, as prefix affinity sends it").contains(6L);
        }
    }

    private static double metric(Gateway gw, String name, String label) {
        try {
            return CacheCalls.metric(gw, name, label);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
