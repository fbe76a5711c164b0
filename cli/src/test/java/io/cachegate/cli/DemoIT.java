package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The demo end to end: simulator, gateway on the embedded default, the OpenAI Java SDK. */
class DemoIT {

    @Test
    void demo_shortWorkload_reportsIdenticalAnswersThroughTheGateway() {
        CliTest.Run run = CliTest.run("demo", "--requests", "6", "--ttft-ms", "0", "--tpot-ms", "0");
        assertThat(run.exit()).isZero();
        assertThat(run.out())
                .contains("answers identical to the direct call: 6 of 6")
                .contains("X-Cache: {BYPASS=6}")
                .contains("backend calls: 12")
                .contains("added by the gateway");
    }
}
