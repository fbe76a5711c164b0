package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The demo end to end: simulator, gateway on the embedded default, the OpenAI Java SDK. */
class DemoIT {

    @Test
    void demo_repeatedPrompts_areAnsweredFromTheCache() {
        // 12 requests over 8 prompts: the first 8 miss; of the 4 after them, the second is a rephrased prompt,
        // answered by the semantic cache, and the others repeat a prompt exactly. The semantic hit may be audited
        // (cache.semantic.audit.rate 0.05): one more backend call, in the background.
        CliTest.Run run = CliTest.run("demo", "--requests", "12", "--ttft-ms", "0", "--tpot-ms", "0");
        assertThat(run.exit()).isZero();
        assertThat(run.out())
                .contains("answers identical to the direct call: 11 of 12; the 1 rephrased questions")
                .contains("X-Cache: {HIT (exact)=3, HIT (semantic)=1, MISS=8}")
                .contains("\"What's the capital of France?\" answered with the cached answer of a paraphrase")
                .containsPattern("backend calls made by the gateway: (8|9 \\(1 of them audits of semantic hits\\)); calls avoided: 4");
    }
}
