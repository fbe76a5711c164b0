package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.get;
import static io.cachegate.simulator.TestHttp.json;
import static io.cachegate.simulator.TestHttp.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReplicasTest {

    private static final String CHAT = "/v1/chat/completions";
    private static final String PROMPT = "{\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\""
            + "tell me about caches ".repeat(10) + "\"}]}";

    private SimulatorReplicas replicas;

    @AfterEach
    void stop() {
        if (replicas != null) {
            replicas.close();
        }
    }

    private static SimulatorOptions options() {
        return SimulatorOptions.defaults().withPrefixCacheBlocks(64).withPrefixBlockChars(32);
    }

    @Test
    void startReplicas_portZero_eachOnItsOwnEphemeralPort() {
        replicas = BackendSimulator.startReplicas(3, options());

        List<URI> urls = replicas.baseUrls();
        assertThat(replicas.size()).isEqualTo(3);
        assertThat(urls).hasSize(3).doesNotHaveDuplicates();
        for (int i = 0; i < 3; i++) {
            assertThat(replicas.isRunning(i)).isTrue();
            assertThat(replicas.replica(i).baseUrl()).isEqualTo(urls.get(i));
            assertThat(replicas.replica(i).options().seed()).isEqualTo(42 + i);
            assertThat(get(replicas.replica(i), "/health").statusCode()).isEqualTo(200);
        }
        assertThat(replicas.replicas()).hasSize(3);
    }

    @Test
    void replicas_haveIndependentStatsAndPrefixCaches() {
        replicas = BackendSimulator.startReplicas(2, options());
        BackendSimulator a = replicas.replica(0);
        BackendSimulator b = replicas.replica(1);

        post(a, CHAT, PROMPT);
        post(a, CHAT, PROMPT);
        post(b, CHAT, PROMPT);

        SimulatorStats sa = replicas.stats(0);
        SimulatorStats sb = replicas.stats(1);
        assertThat(sa.requests()).isEqualTo(2);
        assertThat(sb.requests()).isEqualTo(1);
        assertThat(sa.prefixHitRequests()).isEqualTo(1); // its second request found the first's blocks
        assertThat(sb.prefixHitRequests()).isZero(); // b's cache never saw the prompt
        assertThat(sb.prefixBlocksQueried()).isPositive();
        assertThat(json(get(b, "/sim/stats").body()).get("prefix_blocks_hit").asLong()).isZero();
    }

    @Test
    void stop_oneReplica_refusesConnectionsWhileOthersServe() {
        replicas = BackendSimulator.startReplicas(3, options());
        int stoppedPort = replicas.replica(1).port();
        post(replicas.replica(1), CHAT, PROMPT);

        replicas.stop(1);

        assertThat(replicas.isRunning(1)).isFalse();
        assertThatThrownBy(() -> connect(stoppedPort)).isInstanceOf(ConnectException.class);
        assertThat(post(replicas.replica(0), CHAT, PROMPT).statusCode()).isEqualTo(200);
        assertThat(post(replicas.replica(2), CHAT, PROMPT).statusCode()).isEqualTo(200);
        assertThat(replicas.stats(1).requests()).isEqualTo(1); // a stopped replica's last counters stay readable
        replicas.stop(1); // stopping twice does nothing
    }

    @Test
    void restart_stoppedReplica_servesOnTheSamePortWithAnEmptyCache() {
        replicas = BackendSimulator.startReplicas(2, options());
        URI url = replicas.replica(0).baseUrl();
        post(replicas.replica(0), CHAT, PROMPT);
        replicas.stop(0);

        BackendSimulator restarted = replicas.restart(0);

        assertThat(replicas.isRunning(0)).isTrue();
        assertThat(restarted.baseUrl()).isEqualTo(url);
        assertThat(replicas.replica(0)).isSameAs(restarted);
        assertThat(restarted.stats().requests()).isZero();
        assertThat(post(restarted, CHAT, PROMPT).statusCode()).isEqualTo(200);
        assertThat(restarted.stats().prefixHitRequests()).isZero(); // a restarted replica forgot its cache
    }

    @Test
    void close_closesEveryReplicaAndIsIdempotent() {
        replicas = BackendSimulator.startReplicas(2, options());
        int first = replicas.replica(0).port();
        int second = replicas.replica(1).port();

        replicas.close();
        replicas.close();

        assertThatThrownBy(() -> connect(first)).isInstanceOf(ConnectException.class);
        assertThatThrownBy(() -> connect(second)).isInstanceOf(ConnectException.class);
    }

    @Test
    void startReplicas_invalidCount_isRejected() {
        assertThatThrownBy(() -> BackendSimulator.startReplicas(0, options()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("count");
        assertThatThrownBy(() -> BackendSimulator.startReplicas(2, options().withPort(65535)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65535");
    }

    private static void connect(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        }
    }
}
