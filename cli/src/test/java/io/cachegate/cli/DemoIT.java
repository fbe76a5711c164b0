package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The demo end to end: simulator, gateway on the embedded default, the OpenAI Java SDK. */
class DemoIT {

    @Test
    void demo_repeatedPrompts_areAnsweredFromTheCache() {
        // 12 requests over 8 prompts: the first 8 miss; of the 4 after them, the second is a rephrased prompt and the
        // others repeat a prompt exactly. Under the default error budget one earlier phrasing is not evidence enough:
        // the rephrased prompt goes upstream (SemanticCacheIT serves such paraphrases with the static decision).
        CliTest.Run run = CliTest.run("demo", "--requests", "12", "--ttft-ms", "0", "--tpot-ms", "0");
        assertThat(run.exit()).isZero();
        assertThat(run.out())
                .contains("answers identical to the direct call: 12 of 12")
                .contains("X-Cache: {HIT (exact)=3, MISS=9}")
                .contains("rephrased questions: 1, answered by meaning: 0; the others went upstream: under the error budget")
                .contains("backend calls made by the gateway: 9; calls avoided: 3");
        // Then the semantic part: after a warm phase of agreeing phrasings, new rephrasings are answered by meaning,
        // with the route's evidence and the anytime bound of its audited wrong rate beside them. Every phrasing of
        // both parts is in the simulator's answer book, so no exploration is wrong: a phrasing generated afresh
        // (outside the book) had made its neighbours' verdicts wrong and kept 6 of the 7 upstream.
        assertThat(run.out()).contains("By meaning: 20 phrasings of 5 questions sent first")
                .containsPattern("answered by meaning: [4-7] of 7; served on the estimate")
                .containsPattern("evidence: [0-9]+ explorations \\(0 wrong\\)")
                .containsPattern("audits of hits \\(0 wrong\\): audited wrong rate 0\\.0%, its always-valid 95% bound "
                        + "[0-9.]+% against the budget 1\\.0%");
    }
}
