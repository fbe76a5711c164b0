package io.cachegate.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * Sends {@code bench chaos}'s chat requests and tells who made each failure: the gateway (a 5xx of its own, a
 * connection error, a timeout) or the backend (its injected 500, passed through). Requests go round-robin over the
 * gateways that are alive, so a killed gateway's clients move on as behind a load balancer.
 */
final class ChaosLoad {

    /** The simulator's injected errors say so in their message; the gateway's own never do. */
    private static final String INJECTED = "Injected fault";

    /** One request: its body and whether it asks for a stream. */
    record Request(byte[] body, boolean stream) {
    }

    /** Who made a failed answer, or none for a 200; a 4xx (a 429, say) is the gateway's deliberate answer. */
    enum Failure { NONE, GATEWAY, CONNECTION, BACKEND, REJECTED }

    /** One answer as the client saw it; {@code error} the exception's class and message when there was no answer. */
    record Answer(int gateway, int status, String xCache, double millis, Failure failure, String error) {

        /** What went wrong, for a tally: the status, or the exception. */
        String kind() {
            return status != 0 ? "HTTP " + status : error;
        }
    }

    private final HttpClient http;
    private final Duration timeout;

    ChaosLoad(Duration timeout) {
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
                .executor(Executors.newCachedThreadPool(r -> {
                    Thread t = new Thread(r, "chaos-http");
                    t.setDaemon(true);
                    return t;
                })).build();
        this.timeout = timeout;
    }

    /** Sends {@code requests} in order from {@code connections} threads over the live ones of {@code gateways}. */
    List<Answer> closedLoop(List<URI> gateways, IntPredicate alive, List<Request> requests, int connections)
            throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        List<Answer> answers = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        for (int t = 0; t < connections; t++) {
            pool.execute(() -> {
                for (int i = next.getAndIncrement(); i < requests.size(); i = next.getAndIncrement()) {
                    answers.add(send(gateways, alive, i, requests.get(i)));
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(10, TimeUnit.MINUTES)) {
            pool.shutdownNow();
        }
        return new ArrayList<>(answers);
    }

    /** Sends request number {@code i} to the i-th live gateway (in order from {@code i mod size}). */
    Answer send(List<URI> gateways, IntPredicate alive, int i, Request r) {
        int g = i % gateways.size();
        for (int k = 0; k < gateways.size() && !alive.test(g); k++) {
            g = (g + 1) % gateways.size();
        }
        HttpRequest request = HttpRequest.newBuilder(gateways.get(g).resolve(ChatRequests.PATH)).timeout(timeout)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(r.body())).build();
        long t0 = System.nanoTime();
        try {
            HttpResponse<String> a = http.send(request, HttpResponse.BodyHandlers.ofString());
            Failure failure = a.statusCode() == 200 ? Failure.NONE
                    : a.body().contains(INJECTED) ? Failure.BACKEND
                    : a.statusCode() >= 500 ? Failure.GATEWAY : Failure.REJECTED;
            return new Answer(g, a.statusCode(), a.headers().firstValue("x-cache").orElse(""),
                    (System.nanoTime() - t0) / 1e6, failure, null);
        } catch (IOException e) {
            return new Answer(g, 0, "", (System.nanoTime() - t0) / 1e6, Failure.CONNECTION,
                    e.getClass().getSimpleName() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(g, 0, "", (System.nanoTime() - t0) / 1e6, Failure.CONNECTION, "interrupted");
        }
    }
}
