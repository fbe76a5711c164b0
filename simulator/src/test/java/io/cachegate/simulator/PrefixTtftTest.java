package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The modelled time to first token with a prefix cache, read from the model rather than a clock. */
class PrefixTtftTest {

    private static final String SYSTEM = "You are a careful assistant. ".repeat(40); // 1160 characters

    private static CompletionRequest chat(Simulation sim, String question) {
        String body = "{\"messages\":[{\"role\":\"system\",\"content\":\"" + SYSTEM + "\"},"
                + "{\"role\":\"user\",\"content\":\"" + question + "\"}]}";
        return CompletionRequest.parse(CompletionRequest.Kind.CHAT, json(body), sim.options.models(),
                sim.options.defaultMaxTokens(), sim.prefixBlockChars());
    }

    private static Simulation simulation(int prefixCacheBlocks) {
        return new Simulation(SimulatorOptions.defaults().withTtftMs(50).withPrefillMsPerToken(1)
                .withPrefixCacheBlocks(prefixCacheBlocks).withPrefixBlockChars(256));
    }

    /** {@code request} runs from start to end: returns its modelled time to first token; its blocks stay cached. */
    private static long runWhole(Simulation sim, CompletionRequest request) {
        PrefixCache.Hold hold = sim.started(request, System.nanoTime());
        long delay = sim.latency.firstTokenDelayNanos(request.promptTokens(),
                Math.max(0, sim.cachedTokens(request, hold)));
        sim.prefilled(hold);
        sim.ended(hold);
        return delay;
    }

    @Test
    void firstTokenDelay_samePrefixAgain_isShorterAndCountsHits() {
        Simulation sim = simulation(100);
        CompletionRequest first = chat(sim, "What is a cache?");

        long cold = runWhole(sim, first);
        long warm = runWhole(sim, chat(sim, "What is a prefix?"));

        assertThat(cold).isEqualTo(50_000_000L + first.promptTokens() * 1_000_000L);
        assertThat(warm).isLessThan(cold / 2); // four of the five blocks were cached
        assertThat(warm).isGreaterThanOrEqualTo(50_000_000L);
        SimulatorStats stats = sim.stats();
        assertThat(stats.prefixBlocksQueried()).isEqualTo(2L * first.prefix().chain().length);
        assertThat(stats.prefixBlocksHit()).isEqualTo(4);
        assertThat(stats.prefixHitRequests()).isEqualTo(1);
        assertThat(stats.prefixBlocksCached()).isEqualTo(first.prefix().chain().length);
    }

    @Test
    void firstTokenDelay_cacheOff_isTheOldModel() {
        Simulation sim = simulation(0);
        CompletionRequest request = chat(sim, "What is a cache?");
        runWhole(sim, request);

        assertThat(request.prefix().chain()).isEmpty(); // prompts are not even cut
        assertThat(runWhole(sim, request)).isEqualTo(sim.latency.firstTokenDelayNanos(request.promptTokens()));
        assertThat(sim.stats().prefixBlocksQueried()).isZero();
    }

    @Test
    void firstTokenDelay_otherModel_missesTheCache() {
        Simulation sim = simulation(100);
        CompletionRequest llama = chat(sim, "q");
        runWhole(sim, llama);

        String body = "{\"model\":\"qwen2.5-0.5b\",\"messages\":[{\"role\":\"system\",\"content\":\"" + SYSTEM + "\"},"
                + "{\"role\":\"user\",\"content\":\"q\"}]}";
        CompletionRequest qwen = CompletionRequest.parse(CompletionRequest.Kind.CHAT, json(body),
                sim.options.models(), 64, sim.prefixBlockChars());

        assertThat(runWhole(sim, qwen)).isEqualTo(sim.latency.firstTokenDelayNanos(qwen.promptTokens()));
    }

    @Test
    void firstTokenDelay_prefixBeingComputed_waitsForThatPrefillThenCountsItCached() {
        Simulation sim = simulation(100);
        CompletionRequest first = chat(sim, "What is a cache?");
        CompletionRequest second = chat(sim, "What is a prefix?");
        long now = 1_000_000_000L;

        PrefixCache.Hold computing = sim.started(first, now);
        PrefixCache.Hold waiting = sim.started(second, now + 10_000_000L); // 10 ms into the first's prefill

        long ownPrefill = sim.latency.firstTokenDelayNanos(second.promptTokens(), sim.cachedTokens(second, waiting));
        assertThat(computing.firstTokenAt()).isEqualTo(now + sim.latency.firstTokenDelayNanos(first.promptTokens()));
        assertThat(waiting.hits()).as("the system prompt's four blocks, being computed").isEqualTo(4);
        assertThat(waiting.firstTokenAt()).as("its own prefill starts when the first's ends")
                .isEqualTo(computing.firstTokenAt() + ownPrefill);
        assertThat(sim.stats().prefixWaitRequests()).isEqualTo(1);
        assertThat(sim.stats().prefixBlocksHit()).isEqualTo(4);
    }

    @Test
    void firstTokenDelay_sharedPrefill_aSecondMissQueuesBehindTheFirst_aCachedPromptDoesNot() {
        Simulation sim = new Simulation(SimulatorOptions.defaults().withTtftMs(50).withPrefillMsPerToken(1)
                .withPrefixCacheBlocks(100).withPrefixBlockChars(256).withSharedPrefill(true));
        CompletionRequest first = chat(sim, "What is a cache?");
        CompletionRequest other = CompletionRequest.parse(CompletionRequest.Kind.CHAT,
                json("{\"messages\":[{\"role\":\"user\",\"content\":\"" + "Something else entirely. ".repeat(20)
                        + "\"}]}"), sim.options.models(), 64, sim.prefixBlockChars());
        long now = 1_000_000_000L;

        PrefixCache.Hold computing = sim.started(first, now);
        PrefixCache.Hold queued = sim.started(other, now + 10_000_000L);

        long firstPrefill = first.promptTokens() * 1_000_000L;
        assertThat(computing.firstTokenAt()).isEqualTo(now + firstPrefill + 50_000_000L);
        assertThat(queued.hits()).isZero();
        assertThat(queued.firstTokenAt()).as("its prefill starts when the first's ends")
                .isEqualTo(now + firstPrefill + other.promptTokens() * 1_000_000L + 50_000_000L);
        sim.prefilled(computing);
        sim.prefilled(queued);
        sim.ended(computing);
        sim.ended(queued);

        // The first prompt again, wholly cached but its last partial block: only that tail waits for the engine.
        CompletionRequest again = chat(sim, "What is a cache?");
        PrefixCache.Hold warm = sim.started(again, now + 20_000_000L);
        long tail = sim.latency.prefillNanos(again.promptTokens(), sim.cachedTokens(again, warm));
        assertThat(warm.firstTokenAt()).isEqualTo(queued.firstTokenAt() - 50_000_000L + tail + 50_000_000L);
    }
}
