package io.cachegate.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.RecordingNext;
import java.net.URI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReplicaChoiceStageTest {

    private static final URI A = URI.create("http://replica-a:8000");
    private static final URI B = URI.create("http://replica-b:8000");
    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - name: main
                urls: ["http://replica-a:8000", "http://replica-b:8000"]
                model_version: "llama@1"
                health: {failures_to_eject: 1, eject_for: 7s, interval: 3s}
            admission: {enabled: false} # the replica stage chooses; admission on would have leased one already
            """);

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final Backends backends = new Backends(POLICY, exchanges.metrics(), exchanges.ticker());
    private final AdmissionStage admission = new AdmissionStage(new ServePlanner(POLICY, backends));
    private final ReplicaChoiceStage stage = new ReplicaChoiceStage();
    private final RecordingNext next = new RecordingNext();

    @AfterEach
    void close() {
        exchanges.close();
    }

    @Test
    void handle_withoutAdmissionControl_reservesTheLeastLoadedReplica() {
        Exchange first = planned();
        Exchange second = planned();

        stage.handle(first, next);
        stage.handle(second, next);

        assertThat(next.exchanges()).containsExactly(first, second);
        assertThat(first.lease().replica()).isIn(A, B);
        assertThat(second.lease().replica()).as("the other, idle one").isNotEqualTo(first.lease().replica());
    }

    @Test
    void handle_everyReplicaDown_answers503() {
        Exchange x = planned();
        backends.get("main").replicas().recordProbe(A, false); // down by its probe: request failures never eject the last replica
        backends.get("main").replicas().recordProbe(B, false);

        stage.handle(x, next);

        Written written = Exchanges.written(x);
        assertThat(next.called()).isFalse();
        assertThat(written.status()).isEqualTo(503);
        assertThat(written.body()).contains("Every replica of backend 'main' is down");
    }

    @Test
    void admission_everyReplicaDownAndNoFallback_answers503_retryAfterTheNextProbe() {
        backends.get("main").replicas().recordProbe(A, false); // down by its probe: request failures never eject the last replica
        backends.get("main").replicas().recordProbe(B, false);
        Exchange x = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", "hello"));

        admission.handle(x, next);

        Written written = Exchanges.written(x);
        assertThat(next.called()).isFalse();
        assertThat(written.status()).isEqualTo(503);
        assertThat(written.header("retry-after")).as("health.interval, sooner than eject_for").isEqualTo("3");
    }

    /** An exchange whose serve plan is made (no admission control: no replica reserved yet). */
    private Exchange planned() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", "hello"));
        RecordingNext planned = new RecordingNext();
        admission.handle(x, planned);
        assertThat(planned.count(x)).isEqualTo(1);
        assertThat(x.lease()).isNull();
        return x;
    }
}
