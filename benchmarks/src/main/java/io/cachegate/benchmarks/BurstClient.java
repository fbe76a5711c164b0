package io.cachegate.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * Sends a burst of identical requests as separate users would: each from a client and connection of its own
 * (a new {@link HttpClient}), their start times spread evenly over a window, round-robin over the gateways.
 */
public final class BurstClient {

    private BurstClient() {
    }

    /**
     * What one client saw: status (0 when the connection failed or timed out), {@code X-Cache} and
     * {@code X-Cache-Coalesced}, the body, and when it was sent and answered ({@link System#nanoTime()}).
     */
    public record Outcome(int status, String xCache, String coalesced, String body, long sentNanos, long doneNanos,
                          String error) {

        public double millis() {
            return (doneNanos - sentNanos) / 1e6;
        }
    }

    /**
     * A non-streamed, deterministic chat request for {@code question}. It gives no {@code max_tokens}: the simulator
     * stops by itself ({@code --default-max-tokens}) with {@code finish_reason: stop}, which the cache stores (an
     * answer cut at {@code max_tokens}, {@code length}, is not stored by default).
     */
    public static byte[] chat(String question) {
        var body = BenchJson.object().put("model", ChatRequests.MODEL).put("temperature", 0);
        body.putArray("messages").addObject().put("role", "user").put("content", question);
        return BenchJson.bytes(body);
    }

    /**
     * Sends {@code count} copies of {@code body}, copy i to {@code gateways[i mod size]} at {@code spread × i / count}
     * after every client is ready (made before the clock starts); completes when every client has its answer or gave
     * up after {@code timeout}.
     */
    public static CompletableFuture<List<Outcome>> send(List<URI> gateways, byte[] body, int count, Duration spread,
                                                        Duration timeout) throws InterruptedException {
        // Clients and threads are made before the clock starts: their set-up must not load the machine in the window.
        CountDownLatch ready = new CountDownLatch(count);
        long[] start = new long[1];
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<Outcome>> all = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            URI target = gateways.get(i % gateways.size()).resolve(ChatRequests.PATH);
            long offset = spread.toNanos() * i / count;
            CompletableFuture<Outcome> one = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(5)).build();
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                one.complete(call(client, target, body, start[0] + offset, timeout));
            }, "burst-client-" + i);
            t.setDaemon(true);
            t.start();
            all.add(one);
        }
        ready.await();
        start[0] = System.nanoTime();
        go.countDown(); // the latch publishes start[0] to the clients
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                .thenApply(v -> all.stream().map(CompletableFuture::join).toList());
    }

    private static Outcome call(HttpClient client, URI target, byte[] body, long due, Duration timeout) {
        HttpRequest request = HttpRequest.newBuilder(target).timeout(timeout).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
            LockSupport.parkNanos(wait);
        }
        long sent = System.nanoTime();
        try {
            HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
            return new Outcome(r.statusCode(), r.headers().firstValue("x-cache").orElse(""),
                    r.headers().firstValue("x-cache-coalesced").orElse(""), r.body(), sent, System.nanoTime(), null);
        } catch (IOException e) {
            return new Outcome(0, "", "", "", sent, System.nanoTime(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(0, "", "", "", sent, System.nanoTime(), "interrupted");
        }
    }
}
