package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.json;
import static io.cachegate.simulator.TestHttp.post;
import static io.cachegate.simulator.TestHttp.quote;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code --kv-events} end to end: replicas on loopback, a JeroMQ subscriber decoding with msgpack-core. */
class KvEventsTest {

    private static final String CHAT = "/v1/chat/completions";
    private static final int BLOCK = 16;
    private static final List<String> SYSTEMS = List.of(
            "You are a support agent for a bank. Answer politely, cite the policy, never promise refunds. ".repeat(12),
            "You are a code reviewer. Point out bugs first, then style, and keep every remark short and kind. "
                    .repeat(12),
            "You are a travel planner. Suggest trains before planes, list prices in euros and mention the weather. "
                    .repeat(12));

    private static PromptTokenizer tokenizer;
    private SimulatorReplicas replicas;
    private final List<KvEventClient> clients = new ArrayList<>();

    @BeforeAll
    static void loadTokenizer() {
        tokenizer = PromptTokenizer.load(PromptTokenizer.BUNDLED);
    }

    @AfterAll
    static void closeTokenizer() {
        tokenizer.close();
    }

    @AfterEach
    void stop() {
        clients.forEach(KvEventClient::close);
        if (replicas != null) {
            replicas.close();
        }
    }

    private static SimulatorOptions options(int cacheBlocks) {
        return SimulatorOptions.defaults().withPrefixCacheBlocks(cacheBlocks)
                .withKvEvents(SimulatorOptions.KvEvents.on());
    }

    private static String chat(String model, String system, String user, boolean stream) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":2" + (stream
                ? ",\"stream\":true,\"stream_options\":{\"include_usage\":true}" : "")
                + ",\"messages\":[{\"role\":\"system\",\"content\":" + quote(system) + "},"
                + "{\"role\":\"user\",\"content\":" + quote(user) + "}]}";
    }

    /** The token-block chain the gateway computes for this chat: the contract's text, tokenizer and hash. */
    private static long[] expectedChain(String model, String system, String user) {
        String text = "system\n" + system + "\nuser\n" + user + "\n";
        return PromptBlocks.ofTokens(model, tokenizer.tokenize(text), BLOCK).chain();
    }

    private KvEventClient subscribe(BackendSimulator replica) {
        KvEventClient client = new KvEventClient(replica.stats().kvEvents().endpoint());
        clients.add(client);
        return client;
    }

    /**
     * Sends distinct prompts until the subscriber receives a batch, so its subscription is live (ZeroMQ's slow
     * joiner); returns what it received. A subscription that has received nothing after 5 s is replaced by a new
     * one (CI once saw one stay silent for 10 s on a loaded machine), for 30 s at most in all.
     */
    private static TreeMap<Long, KvEventClient.Batch> warmUp(BackendSimulator replica, KvEventClient client) {
        TreeMap<Long, KvEventClient.Batch> received = new TreeMap<>();
        List<Integer> statuses = new ArrayList<>();
        long start = System.nanoTime();
        long resubscribed = start;
        for (int i = 0; received.isEmpty() && System.nanoTime() - start < Duration.ofSeconds(30).toNanos(); i++) {
            if (System.nanoTime() - resubscribed > Duration.ofSeconds(5).toNanos()) {
                client.resubscribe();
                resubscribed = System.nanoTime();
            }
            statuses.add(post(replica, CHAT, chat("llama-3.1-8b", "warm up number " + i + " " + "x ".repeat(40),
                    "hi", false)).statusCode());
            KvEventClient.Batch batch = client.receive(Duration.ofMillis(200));
            if (batch != null) {
                received.put(batch.seq(), batch);
            }
        }
        assertThat(received).as("the subscription became live (answers %s, batches published %d, dropped %d)",
                statuses.stream().collect(Collectors.groupingBy(s -> s, TreeMap::new, Collectors.counting())),
                replica.stats().kvEvents().published(), replica.stats().kvEvents().dropped()).isNotEmpty();
        return received;
    }

    /**
     * Fills what the slow joiner missed from the replay socket (as a subscriber would), then receives until the last
     * published batch is in and the replica's cache has stopped changing (an answer's end can still evict), at most
     * 10 s; returns the view built by applying every batch in order.
     */
    private static Set<Long> follow(BackendSimulator replica, KvEventClient client,
                                    TreeMap<Long, KvEventClient.Batch> received) {
        long first = received.firstKey();
        for (KvEventClient.Batch batch : client.replay(replica.stats().kvEvents().replayEndpoint(), 0)) {
            if (batch.seq() < first) {
                received.put(batch.seq(), batch);
            }
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            KvEventClient.Batch batch = client.receive(Duration.ofMillis(50));
            if (batch != null) {
                received.put(batch.seq(), batch);
            } else if (received.lastKey() == replica.stats().kvEvents().published() - 1
                    && view(received).equals(replica.cachedBlocks())) {
                break;
            }
        }
        assertThat(received.keySet()).as("no gaps").containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, received.size()).boxed().toList());
        return view(received);
    }

    private static Set<Long> view(TreeMap<Long, KvEventClient.Batch> received) {
        Set<Long> view = new HashSet<>();
        received.values().forEach(batch -> KvEventClient.apply(batch, view));
        return view;
    }

    @Test
    void workloadWithEviction_subscriberViewEqualsReplicaBlocks() {
        replicas = BackendSimulator.startReplicas(2, options(48)); // a system prompt is ~13 blocks: eviction
        List<TreeMap<Long, KvEventClient.Batch>> received = new ArrayList<>();
        List<KvEventClient> subs = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            subs.add(subscribe(replicas.replica(r)));
            received.add(warmUp(replicas.replica(r), subs.get(r)));
        }

        for (int i = 0; i < 40; i++) {
            String model = i % 5 == 4 ? "qwen2.5-0.5b" : "llama-3.1-8b";
            String user = "question " + i + " about " + "details ".repeat(i % 7 * 5) + distinct(i % 11);
            assertThat(post(replicas.replica(i % 2), CHAT, chat(model, SYSTEMS.get(i % 3), user, false)).statusCode())
                    .isEqualTo(200);
        }

        for (int r = 0; r < 2; r++) {
            BackendSimulator replica = replicas.replica(r);
            Set<Long> view = follow(replica, subs.get(r), received.get(r));
            assertThat(view).isEqualTo(replica.cachedBlocks());
            assertThat(replica.stats().kvEvents().blocks()).isEqualTo(view.size());
            assertThat(replica.stats().kvEvents().dropped()).isZero();
            assertEventsWellFormed(received.get(r).values(), replica.stats().prefixCacheBlocks());
        }
        assertThat(replicas.stats(0).kvEvents().blocks()).isEqualTo(48); // full: eviction happened
    }

    /** Every BlockStored chains from its parent, carries blocks × block size tokens; removals follow evictions. */
    private static void assertEventsWellFormed(Iterable<KvEventClient.Batch> batches, int capacity) {
        Set<Long> view = new HashSet<>();
        boolean removed = false;
        for (KvEventClient.Batch batch : batches) {
            assertThat(batch.rank()).isZero();
            assertThat(batch.ts()).isCloseTo(System.currentTimeMillis() / 1000.0, org.assertj.core.data.Offset.offset(60.0));
            for (Map<String, Object> event : batch.events()) {
                if (event.get("type").equals("BlockStored")) {
                    assertThat(event.keySet()).containsExactly("type", "block_hashes", "parent_block_hash",
                            "token_ids", "block_size", "lora_id", "medium", "lora_name");
                    List<Long> hashes = KvEventClient.longs(event.get("block_hashes"));
                    List<Long> tokens = KvEventClient.longs(event.get("token_ids"));
                    assertThat(event.get("block_size")).isEqualTo((long) BLOCK);
                    assertThat(event.get("medium")).isEqualTo("GPU");
                    assertThat(tokens).hasSize(hashes.size() * BLOCK);
                    Long parent = (Long) event.get("parent_block_hash");
                    int[] ids = tokens.stream().mapToInt(Long::intValue).toArray();
                    long previous;
                    if (parent == null) {
                        long first = hashes.get(0);
                        previous = List.of("llama-3.1-8b", "qwen2.5-0.5b").stream().map(PromptBlocks::seed)
                                .filter(seed -> PromptBlocks.blockHash(seed, ids, 0, BLOCK) == first)
                                .findFirst().orElseThrow(() -> new AssertionError("first block not from a model seed"));
                    } else {
                        assertThat(view).as("the parent is cached").contains(parent);
                        previous = parent;
                    }
                    for (int k = 0; k < hashes.size(); k++) {
                        previous = PromptBlocks.blockHash(previous, ids, k * BLOCK, (k + 1) * BLOCK);
                        assertThat(hashes.get(k)).as("block %d chains from its parent", k).isEqualTo(previous);
                        assertThat(hashes.get(k)).isNotNegative();
                        assertThat(view).as("a stored block is new").doesNotContain(hashes.get(k));
                    }
                } else if (event.get("type").equals("BlockRemoved")) {
                    assertThat(view).containsAll(KvEventClient.longs(event.get("block_hashes")));
                    removed = true;
                }
            }
            KvEventClient.apply(batch, view);
            assertThat(view.size()).isLessThanOrEqualTo(capacity);
        }
        assertThat(removed).as("eviction pressure produced removals").isTrue();
    }

    @Test
    void slowDecode_promptBlocksPublishedAtFirstToken_beforeTheAnswerEnds() {
        // 60 tokens at 50 ms: the answer ends ~3 s after its first token; vLLM publishes the prompt's blocks after the
        // step that computed them, so they must arrive long before that, and a second request finds them meanwhile.
        replicas = BackendSimulator.startReplicas(1, options(4096).withTtftMs(20).withTpotMs(50));
        BackendSimulator replica = replicas.replica(0);
        KvEventClient client = subscribe(replica);
        warmUp(replica, client);
        String user = "Where is my card?";
        long[] chain = expectedChain("llama-3.1-8b", SYSTEMS.get(0), user);
        String body = supportChat(user, 60);

        java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>> first =
                TestHttp.postAsync(replica, CHAT, body);
        KvEventClient.Batch stored = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (stored == null && System.nanoTime() < deadline) {
            KvEventClient.Batch batch = client.receive(Duration.ofMillis(50));
            if (batch != null && batch.events().stream().anyMatch(e -> e.get("type").equals("BlockStored")
                    && KvEventClient.longs(e.get("block_hashes")).contains(chain[chain.length - 1]))) {
                stored = batch;
            }
        }

        assertThat(stored).as("the prompt's blocks were published").isNotNull();
        assertThat(first).as("before its answer ended").isNotDone();
        assertThat(replica.stats().completed()).isEqualTo(replica.stats().requests() - 1);
        JsonNode second = json(post(replica, CHAT, supportChat(user, 1)).body());
        assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").asInt())
                .as("a request started while the first decodes finds its prompt").isEqualTo(chain.length * BLOCK);
        assertThat(first).as("still decoding").isNotDone();
        assertThat(TestHttp.join(first).statusCode()).isEqualTo(200);
    }

    @Test
    void slowPrefill_aRequestArrivingMeanwhile_waitsForItAndFindsTheWholePrompt() {
        // ~1.3 s of prefill at 5 ms a token: vLLM would schedule the second request after the step computing the
        // first's prompt, with its blocks cached; the simulator must neither compute them again nor skip the wait.
        replicas = BackendSimulator.startReplicas(1, options(4096).withTtftMs(20).withPrefillMsPerToken(5));
        BackendSimulator replica = replicas.replica(0);
        KvEventClient client = subscribe(replica);
        warmUp(replica, client);
        String user = "Where is my card?";
        long[] chain = expectedChain("llama-3.1-8b", SYSTEMS.get(0), user);
        String body = supportChat(user, 1);
        long firstPrefillMs = 20 + 5L * chain.length * BLOCK;

        java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>> first =
                TestHttp.postAsync(replica, CHAT, body);
        TestHttp.awaitStats(replica, s -> s.active() == 1);
        long sent = System.nanoTime();
        JsonNode second = json(post(replica, CHAT, body).body());
        long secondMs = (System.nanoTime() - sent) / 1_000_000;

        assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").asInt())
                .as("the prompt the first was computing counts as cached").isEqualTo(chain.length * BLOCK);
        assertThat(secondMs).as("but only once the first's prefill is done").isGreaterThanOrEqualTo(firstPrefillMs / 2);
        assertThat(TestHttp.join(first).statusCode()).isEqualTo(200);
        assertThat(replica.stats().prefixWaitRequests()).isEqualTo(1);
        long storedTail = 0;
        for (KvEventClient.Batch batch; (batch = client.receive(Duration.ofMillis(300))) != null; ) {
            storedTail += batch.events().stream().filter(e -> e.get("type").equals("BlockStored")
                    && KvEventClient.longs(e.get("block_hashes")).contains(chain[chain.length - 1])).count();
        }
        assertThat(storedTail).as("stored and published once").isEqualTo(1);
    }

    @Test
    void samePrompt_twoReplicasSameHashes_twoModelsNone() {
        replicas = BackendSimulator.startReplicas(2, options(4096));
        String user = "Where is my card?";
        long[] llama = expectedChain("llama-3.1-8b", SYSTEMS.get(0), user);
        long[] qwen = expectedChain("qwen2.5-0.5b", SYSTEMS.get(0), user);

        post(replicas.replica(0), CHAT, chat("llama-3.1-8b", SYSTEMS.get(0), user, false));
        post(replicas.replica(1), CHAT, chat("llama-3.1-8b", SYSTEMS.get(0), user, false));
        post(replicas.replica(1), CHAT, chat("qwen2.5-0.5b", SYSTEMS.get(0), user, false));

        assertThat(llama.length).isGreaterThan(10);
        TestHttp.awaitStats(replicas.replica(1), s -> s.kvEvents().blocks() == llama.length + qwen.length);
        assertThat(replicas.replica(0).cachedBlocks()).containsExactlyInAnyOrder(boxed(llama));
        assertThat(replicas.replica(1).cachedBlocks()).contains(boxed(llama)).contains(boxed(qwen));
        Set<Long> shared = new HashSet<>(List.of(boxed(llama)));
        shared.retainAll(List.of(boxed(qwen)));
        assertThat(shared).as("two models never share a block").isEmpty();
    }

    /** A chat with the first system prompt and {@code user}, answered in {@code maxTokens} tokens. */
    private static String supportChat(String user, int maxTokens) {
        return "{\"model\":\"llama-3.1-8b\",\"max_tokens\":" + maxTokens + ",\"messages\":[{\"role\":\"system\","
                + "\"content\":" + quote(SYSTEMS.get(0)) + "},{\"role\":\"user\",\"content\":" + quote(user) + "}]}";
    }

    /** A user message of several blocks of its own. */
    private static String distinct(int i) {
        return ("please explain item " + i + " in detail. ").repeat(12);
    }

    private static Long[] boxed(long[] values) {
        return java.util.Arrays.stream(values).boxed().toArray(Long[]::new);
    }

    @Test
    void usage_reportsCachedTokens_blocksHitTimesBlockSize() {
        replicas = BackendSimulator.startReplicas(1, options(4096));
        BackendSimulator replica = replicas.replica(0);
        String body = chat("llama-3.1-8b", SYSTEMS.get(1), "Review this.", false);
        int tokens = tokenizer.tokenize("system\n" + SYSTEMS.get(1) + "\nuser\nReview this.\n").length;

        JsonNode cold = json(post(replica, CHAT, body).body()).get("usage");
        TestHttp.awaitStats(replica, s -> s.kvEvents().blocks() == tokens / BLOCK);
        JsonNode warm = json(post(replica, CHAT, body).body()).get("usage");
        List<String> stream = TestHttp.sseData(post(replica, CHAT,
                chat("llama-3.1-8b", SYSTEMS.get(1), "Review this.", true)).body());
        JsonNode streamed = json(stream.get(stream.size() - 2)).get("usage");

        assertThat(cold.get("prompt_tokens").asInt()).isEqualTo(tokens); // the tokenizer's count, not words
        assertThat(cold.at("/prompt_tokens_details/cached_tokens").asInt()).isZero();
        assertThat(warm.at("/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(tokens / BLOCK * BLOCK);
        assertThat(streamed.at("/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(tokens / BLOCK * BLOCK);
        assertThat(replica.stats().prefixBlocksHit()).isEqualTo(2L * (tokens / BLOCK));
    }

    @Test
    void lateSubscriber_rebuildsFromReplay_andRestartClears() {
        replicas = BackendSimulator.startReplicas(1, options(40));
        BackendSimulator replica = replicas.replica(0);
        for (int i = 0; i < 12; i++) {
            post(replica, CHAT, chat("llama-3.1-8b", SYSTEMS.get(i % 3), distinct(i), false));
        }
        TestHttp.awaitStats(replica, s -> s.completed() == 12);
        KvEventClient late = subscribe(replica);
        String replay = replica.stats().kvEvents().replayEndpoint();
        // A request's end may evict after its answer left: ask again until the replica's cache has stopped changing.
        List<KvEventClient.Batch> all = late.replay(replay, 0);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!replayedView(all).equals(replica.cachedBlocks()) && System.nanoTime() < deadline) {
            all = late.replay(replay, 0);
        }
        long published = replica.stats().kvEvents().published();
        Set<Long> view = replayedView(all);
        assertThat(all).extracting(KvEventClient.Batch::seq).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, published).boxed().toList());
        assertThat(view).isEqualTo(replica.cachedBlocks());
        assertThat(late.replay(replay, published - 2)).extracting(KvEventClient.Batch::seq)
                .containsExactly(published - 2, published - 1);
        assertThat(late.replay(replay, published + 100)).isEmpty(); // only the end marker

        warmUp(replica, late); // the live subscription, to see the clear as it happens
        long before = replica.stats().kvEvents().published();
        replicas.restart(0);
        KvEventClient.Batch cleared = late.receive(Duration.ofSeconds(5));
        List<Map<String, Object>> clear = List.of(Map.of("type", "AllBlocksCleared"));
        while (cleared != null && !cleared.events().equals(clear)) { // warm-up batches still on their way
            cleared = late.receive(Duration.ofSeconds(5));
        }
        assertThat(cleared).as("AllBlocksCleared after the restart").isNotNull();
        assertThat(cleared.seq()).as("the sequence goes on").isGreaterThanOrEqualTo(before);
        assertThat(replicas.stats(0).kvEvents().blocks()).isZero();
        assertThat(replicas.stats(0).kvEvents().endpoint()).isEqualTo(replica.stats().kvEvents().endpoint());
    }

    private static Set<Long> replayedView(List<KvEventClient.Batch> batches) {
        Set<Long> view = new HashSet<>();
        batches.forEach(batch -> KvEventClient.apply(batch, view));
        return view;
    }

    @Test
    void replayBuffer_keepsOnlyTheLastBatches() {
        replicas = BackendSimulator.startReplicas(1, options(4096).withKvEvents(
                SimulatorOptions.KvEvents.on().withReplayBuffer(3)));
        BackendSimulator replica = replicas.replica(0);
        for (int i = 0; i < 6; i++) {
            post(replica, CHAT, chat("llama-3.1-8b", SYSTEMS.get(0), distinct(i), false));
        }
        TestHttp.awaitStats(replica, s -> s.kvEvents().published() == 6);
        KvEventClient client = subscribe(replica);

        assertThat(client.replay(replica.stats().kvEvents().replayEndpoint(), 0))
                .extracting(KvEventClient.Batch::seq).containsExactly(3L, 4L, 5L);
    }
}
