package io.cachegate.gateway.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SpeculationTest {

    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - name: main
                urls: ["http://replica-a:8000"]
                model_version: "llama@1"
            """);

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final List<String> ran = new ArrayList<>();

    @AfterEach
    void close() {
        exchanges.close();
    }

    private Exchange exchange() {
        return exchanges.chat(Exchanges.chatBody("llama-3.1-8b", "hello"));
    }

    @Test
    void withoutSpeculation_aStepRunsAtOnce() {
        Exchange x = exchange();

        Speculation.afterDecision(x, () -> ran.add("step"));

        assertThat(Speculation.pending(x)).isFalse();
        assertThat(ran).containsExactly("step");
    }

    @Test
    void miss_runsTheParkedStep_andSaysWhetherACallWasUnderWay() {
        Exchange x = exchange();
        Speculation s = Speculation.start(x);
        Speculation.afterDecision(x, () -> ran.add("queue"));
        assertThat(Speculation.pending(x)).isTrue();
        assertThat(ran).as("parked while the lookup decides").isEmpty();

        assertThat(s.miss()).as("no call had started").isFalse();

        assertThat(ran).containsExactly("queue");
        assertThat(Speculation.pending(x)).isFalse();
        Speculation.afterDecision(x, () -> ran.add("after"));
        assertThat(ran).containsExactly("queue", "after");
    }

    @Test
    void hit_undoesTheCallUnderWay_andDropsTheParkedStep() {
        Exchange x = exchange();
        Speculation s = Speculation.start(x);
        Speculation.onHit(x, () -> ran.add("cancel call"));
        Speculation.afterDecision(x, () -> ran.add("relay the held answer"));

        assertThat(s.hit()).isTrue();

        assertThat(ran).containsExactly("cancel call");
        assertThat(s.decided()).isTrue();
        assertThat(s.miss()).as("nothing is left to run or undo").isFalse();
        assertThat(ran).containsExactly("cancel call");
    }

    @Test
    void miss_withACallUnderWay_forgetsItsUndo() {
        Exchange x = exchange();
        Speculation s = Speculation.start(x);
        Speculation.onHit(x, () -> ran.add("cancel call"));

        assertThat(s.miss()).isTrue();
        Speculation.onHit(x, () -> ran.add("late"));

        assertThat(s.hit()).isFalse();
        assertThat(ran).isEmpty();
    }
}
