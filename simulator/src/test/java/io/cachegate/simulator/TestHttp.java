package io.cachegate.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/** A plain HTTP client for the simulator tests, with SSE parsing and stats polling. */
final class TestHttp {

    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private TestHttp() {
    }

    static HttpResponse<String> post(BackendSimulator sim, String path, String json) {
        return join(postAsync(sim, path, json));
    }

    static CompletableFuture<HttpResponse<String>> postAsync(BackendSimulator sim, String path, String json) {
        HttpRequest request = HttpRequest.newBuilder(sim.baseUrl().resolve(path))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
        return CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> send(HttpRequest request) {
        try {
            return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static HttpResponse<String> get(BackendSimulator sim, String path) {
        return send(HttpRequest.newBuilder(sim.baseUrl().resolve(path)).timeout(Duration.ofSeconds(30)).GET().build());
    }

    static HttpClient client() {
        return CLIENT;
    }

    static URI uri(BackendSimulator sim, String path) {
        return sim.baseUrl().resolve(path);
    }

    /** {@code text} as a JSON string literal. */
    static String quote(String text) {
        try {
            return MAPPER.writeValueAsString(text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The {@code data:} payloads of an SSE body, in order, checking the framing on the way. */
    static List<String> sseData(String body) {
        List<String> events = new ArrayList<>();
        for (String event : body.split("\n\n", -1)) {
            if (event.isEmpty()) {
                continue;
            }
            if (!event.startsWith("data: ")) {
                throw new AssertionError("not an SSE data event: " + event);
            }
            events.add(event.substring("data: ".length()));
        }
        if (!body.endsWith("\n\n")) {
            throw new AssertionError("SSE body does not end with a blank line");
        }
        return events;
    }

    static SimulatorStats awaitStats(BackendSimulator sim, Predicate<SimulatorStats> condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        SimulatorStats stats = sim.stats();
        while (!condition.test(stats)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("stats never met the condition; last: " + stats);
            }
            try {
                Thread.sleep(5); // polling interval, not a timing assumption
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            stats = sim.stats();
        }
        return stats;
    }

    static <T> T join(CompletableFuture<T> future) {
        return future.join();
    }
}
