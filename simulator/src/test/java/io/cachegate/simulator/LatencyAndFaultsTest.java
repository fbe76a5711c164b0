package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.awaitStats;
import static io.cachegate.simulator.TestHttp.json;
import static io.cachegate.simulator.TestHttp.post;
import static io.cachegate.simulator.TestHttp.postAsync;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LatencyAndFaultsTest {

    private static final String CHAT = "/v1/chat/completions";
    private static final String SLOW_STREAM =
            "{\"model\":\"llama-3.1-8b\",\"stream\":true,\"max_tokens\":200,\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}";

    private BackendSimulator sim;

    @AfterEach
    void stop() {
        if (sim != null) {
            sim.close();
        }
    }

    private static String chat(int maxTokens) {
        return "{\"model\":\"llama-3.1-8b\",\"max_tokens\":" + maxTokens + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    @Test
    void ttft_firstByteArrivesAfterTimeToFirstToken() throws Exception {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(200));

        long started = System.nanoTime();
        HttpResponse<InputStream> response = TestHttp.client().send(
                HttpRequest.newBuilder(TestHttp.uri(sim, CHAT))
                        .POST(HttpRequest.BodyPublishers.ofString(chat(2).replace("{", "{\"stream\":true,"))).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            assertThat(body.read()).isEqualTo('d');
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
            body.readAllBytes();
        }
        awaitStats(sim, s -> s.completed() == 1);
    }

    @Test
    void concurrencyLimit_secondRequestWaitsInQueue() {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withMaxConcurrency(1).withTpotMs(20));

        CompletableFuture<HttpResponse<String>> first = postAsync(sim, CHAT, chat(15));
        awaitStats(sim, s -> s.active() == 1);
        CompletableFuture<HttpResponse<String>> second = postAsync(sim, CHAT, chat(16));
        SimulatorStats queued = awaitStats(sim, s -> s.queued() == 1);

        assertThat(queued.active()).isEqualTo(1);
        assertThat(first.join().statusCode()).isEqualTo(200);
        assertThat(second.join().statusCode()).isEqualTo(200);
        // Completed counts an answer before its last bytes leave, and the slot is freed after: the gauges come back
        // to zero a moment later (a leaked slot never does, and the wait times out).
        SimulatorStats done = awaitStats(sim, s -> s.completed() == 2 && s.active() == 0 && s.queued() == 0);
        assertThat(done.requests()).isEqualTo(2);
    }

    @Test
    void queueOverflow_returns503() {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withMaxConcurrency(1).withMaxQueue(1).withTpotMs(50));

        CompletableFuture<HttpResponse<String>> first = postAsync(sim, CHAT, chat(20));
        awaitStats(sim, s -> s.active() == 1);
        CompletableFuture<HttpResponse<String>> second = postAsync(sim, CHAT, chat(20));
        awaitStats(sim, s -> s.queued() == 1);
        HttpResponse<String> third = post(sim, CHAT, chat(20));

        assertThat(third.statusCode()).isEqualTo(503);
        assertThat(json(third.body()).get("error").get("code").asInt()).isEqualTo(503);
        assertThat(sim.stats().errors()).isEqualTo(1);
        first.cancel(true);
        second.cancel(true);
    }

    @Test
    void errorRate_one_returns500() {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withErrorRate(1.0));

        HttpResponse<String> response = post(sim, CHAT, chat(3));

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(json(response.body()).get("error").get("type").asText()).isEqualTo("InternalServerError");
        assertThat(sim.stats().errors()).isEqualTo(1);
    }

    @Test
    void hangRate_one_neverAnswersAndCountsHung() {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withHangRate(1.0));
        HttpRequest request = HttpRequest.newBuilder(TestHttp.uri(sim, CHAT))
                .timeout(Duration.ofMillis(300))
                .POST(HttpRequest.BodyPublishers.ofString(chat(3)))
                .build();

        assertThatThrownBy(() -> HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(HttpTimeoutException.class);
        SimulatorStats stats = sim.stats();
        assertThat(stats.hung()).isEqualTo(1);
        assertThat(stats.completed()).isZero();
    }

    @Test
    void clientDisconnect_midStream_countsCancelledAndFreesSlot() throws IOException {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withMaxConcurrency(1).withTpotMs(20));

        try (Socket socket = new Socket("127.0.0.1", sim.port())) {
            sendRaw(socket, SLOW_STREAM);
            InputStream in = socket.getInputStream();
            String head = readUntil(in, "data: ");
            assertThat(head).startsWith("HTTP/1.1 200").contains("transfer-encoding: chunked");
            assertThat(sim.stats().active()).isEqualTo(1);
        }

        // Cancelled and the freed slot are two counters: wait for both, as for completion below.
        SimulatorStats stats = awaitStats(sim, s -> s.cancelled() == 1 && s.active() == 0);
        assertThat(stats.completed()).isZero();
        assertThat(post(sim, CHAT, chat(2)).statusCode()).isEqualTo(200); // the slot is free again
    }

    @Test
    void clientDisconnect_whileQueued_countsCancelledAndLeavesQueue() throws IOException {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withMaxConcurrency(1).withTpotMs(20));
        // 3 s of generation: the second request must still be queued when it is seen and dropped, on a loaded
        // machine too (half a second was not always enough).
        CompletableFuture<HttpResponse<String>> first = postAsync(sim, CHAT, chat(150));
        awaitStats(sim, s -> s.active() == 1);

        try (Socket socket = new Socket("127.0.0.1", sim.port())) {
            sendRaw(socket, chat(5));
            awaitStats(sim, s -> s.queued() == 1);
        }

        awaitStats(sim, s -> s.cancelled() == 1 && s.queued() == 0);
        assertThat(first.join().statusCode()).isEqualTo(200);
        // Completion and the freed slot are two counters: a snapshot between them shows completed 1, active 1.
        awaitStats(sim, s -> s.completed() == 1 && s.active() == 0);
    }

    @Test
    void keepAlive_servesSequentialRequestsOnOneConnection() throws IOException {
        sim = BackendSimulator.start(SimulatorOptions.defaults());

        try (Socket socket = new Socket("127.0.0.1", sim.port())) {
            // Two requests pipelined in one write: answered in order on the same connection.
            sendRaw(socket, chat(2) + "\u0000" + chat(3));
            InputStream in = socket.getInputStream();
            readUntil(in, "\"completion_tokens\":2");
            readUntil(in, "\"completion_tokens\":3");
        }
        assertThat(awaitStats(sim, s -> s.completed() == 2).requests()).isEqualTo(2);
    }

    @Test
    void cancel_afterCompletion_isNotCounted() {
        sim = BackendSimulator.start(SimulatorOptions.defaults());

        assertThat(post(sim, CHAT, chat(2)).statusCode()).isEqualTo(200);

        // The answer is counted complete a moment before its request leaves the active count: wait for both.
        SimulatorStats stats = awaitStats(sim, s -> s.completed() == 1 && s.active() == 0);
        assertThat(stats.cancelled()).isZero();
    }

    /** Writes one POST per NUL-separated body, all in a single write. */
    private static void sendRaw(Socket socket, String bodies) throws IOException {
        StringBuilder out = new StringBuilder();
        for (String body : bodies.split("\u0000")) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            out.append("POST ").append(CHAT).append(" HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n")
                    .append("Content-Length: ").append(bytes.length).append("\r\n\r\n").append(body);
        }
        OutputStream os = socket.getOutputStream();
        os.write(out.toString().getBytes(StandardCharsets.UTF_8));
        os.flush();
    }

    private static String readUntil(InputStream in, String marker) throws IOException {
        StringBuilder seen = new StringBuilder();
        int b;
        while ((b = in.read()) != -1) {
            seen.append((char) b);
            if (seen.length() >= marker.length() && seen.lastIndexOf(marker) == seen.length() - marker.length()) {
                return seen.toString();
            }
        }
        throw new AssertionError("connection ended before " + marker + ": " + seen);
    }
}
