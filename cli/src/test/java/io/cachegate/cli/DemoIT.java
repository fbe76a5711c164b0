package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The demo end to end: simulator, gateway on the embedded default, the OpenAI Java SDK. */
class DemoIT {

    @Test
    void demo_repeatedPrompts_areAnsweredFromTheCache() {
        // 12 requests over 8 prompts: the first 8 miss, the 4 repeats hit.
        CliTest.Run run = CliTest.run("demo", "--requests", "12", "--ttft-ms", "0", "--tpot-ms", "0");
        assertThat(run.exit()).isZero();
        assertThat(run.out())
                .contains("answers identical to the direct call: 12 of 12")
                .contains("X-Cache: {HIT=4, MISS=8}")
                .contains("backend calls made by the gateway: 8; calls avoided: 4");
    }
}
