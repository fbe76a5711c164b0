package io.cachegate.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The serve plan's admission cost: with prefix affinity, the prompt the likeliest replica does not hold. */
class ServePlannerTest {

    private static final String SYSTEM = "You are a careful assistant for ACME support, answering briefly. ".repeat(30);
    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - name: main
                urls: ["http://replica-a:8000", "http://replica-b:8000"]
                model_version: "llama@1"
                balance: prefix_affinity
            """);

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final Backends backends = new Backends(POLICY, exchanges.metrics(), exchanges.ticker());
    private final ServePlanner planner = new ServePlanner(POLICY, backends);

    @AfterEach
    void close() {
        exchanges.close();
    }

    private ServePlan plan(String prompt) {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", prompt));
        return planner.plan(x, planner.primary(x), "interactive");
    }

    @Test
    void cost_countsThePromptTheLikeliestReplicaDoesNotHold() {
        ServePlan first = plan(SYSTEM + "How do I reset my password?");
        long whole = first.routing().tokenCost();
        first.serving().replicas().tryAcquire(first.routing()).orElseThrow().release(); // its blocks are routed

        ServePlan second = plan(SYSTEM + "How do I change my e-mail address?");
        ServePlan unrelated = plan("Tu es un traducteur professionnel. ".repeat(55) + "Traduis ceci.");

        // The system prompt is ~1,900 characters: about 480 estimated tokens the second request is not charged.
        assertThat(second.routing().tokenCost()).isLessThan(whole - 400);
        assertThat(unrelated.routing().tokenCost()).as("nothing of it held").isGreaterThan(whole - 60);
    }
}
