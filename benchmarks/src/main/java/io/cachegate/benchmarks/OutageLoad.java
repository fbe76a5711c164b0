package io.cachegate.benchmarks;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The open-loop load of {@code bench overload --scenario outage}: one request every {@code 1 / rate} seconds, whatever
 * the answers do, alternating a repeat of a cached entry (in turn, so each is asked again every {@code entries / (rate
 * / 2)} seconds) and a prompt never sent before; each answer sorted by where it came from, by the second it was sent.
 */
final class OutageLoad {

    /** Where an answer came from. */
    enum Kind { HIT, STALE, GENERATED, ERROR }

    /**
     * One request's outcome.
     *
     * @param second the second of the run it was sent in
     * @param entry the repeated entry it asked for, or -1 for a new prompt
     * @param led an answer generated for this very request (not coalesced onto another's call)
     * @param error the status or failure of an error ({@code 502}, {@code timeout}), else empty
     */
    record Outcome(int second, long sentNanos, int entry, Kind kind, boolean led, String error) {

        boolean cached() {
            return entry >= 0;
        }
    }

    private final HttpClient http;
    private final URI chat;
    private final List<byte[]> entries;
    private final String runId;
    private final Duration timeout;
    private final ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    private final List<CompletableFuture<Void>> pending = new ArrayList<>();
    private long startNanos;

    /** @param entries the bodies of the cached entries, in the order they are repeated */
    OutageLoad(HttpClient http, URI gateway, List<byte[]> entries, String runId, Duration timeout) {
        this.http = http;
        this.chat = gateway.resolve(ChatRequests.PATH);
        this.entries = entries;
        this.runId = runId;
        this.timeout = timeout;
    }

    /**
     * A deterministic (cacheable) chat body; {@code text} makes it one of its own. No {@code max_tokens}: the simulator
     * then ends its answer with {@code stop}, and only such answers are stored.
     */
    static byte[] body(String text) {
        return ("{\"model\":\"" + ChatRequests.MODEL + "\",\"temperature\":0,\"messages\":[{\"role\":"
                + "\"user\",\"content\":\"" + text + "\"}]}").getBytes(StandardCharsets.UTF_8);
    }

    /** Starts the run's clock: second 0 is now. */
    void start() {
        startNanos = System.nanoTime();
    }

    /**
     * Sends at {@code rate} a second from {@link #start} until {@code endNanos} (a {@link System#nanoTime()}, read
     * before each request: it may be set while this runs); returns once all are sent.
     */
    void run(double rate, LongSupplier endNanos) {
        for (long i = 0; ; i++) {
            long due = startNanos + (long) (i * 1e9 / rate);
            if (due - endNanos.getAsLong() >= 0) {
                return;
            }
            for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            int entry = i % 2 == 0 ? (int) ((i / 2) % entries.size()) : -1;
            byte[] body = entry >= 0 ? entries.get(entry) : body("new prompt " + i + " of " + runId);
            send(entry, body);
        }
    }

    /** The second of the run {@code nanos} (a {@link System#nanoTime()}) falls in. */
    int second(long nanos) {
        return (int) ((nanos - startNanos) / 1_000_000_000L);
    }

    /** Waits for every answer (each ends by its timeout at the latest); the outcomes in no particular order. */
    List<Outcome> outcomes() {
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        return List.copyOf(outcomes);
    }

    private void send(int entry, byte[] body) {
        long sent = System.nanoTime();
        int second = second(sent);
        HttpRequest request = HttpRequest.newBuilder(chat).timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        pending.add(http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).handle((r, failure) -> {
            outcomes.add(failure != null ? new Outcome(second, sent, entry, Kind.ERROR, false, failureName(failure))
                    : outcome(second, sent, entry, r));
            return null;
        }));
    }

    static Outcome outcome(int second, long sent, int entry, HttpResponse<?> r) {
        if (r.statusCode() != 200) {
            return new Outcome(second, sent, entry, Kind.ERROR, false, Integer.toString(r.statusCode()));
        }
        String xCache = r.headers().firstValue("X-Cache").orElse("");
        Kind kind = switch (xCache) {
            case "HIT" -> Kind.HIT;
            case "STALE" -> Kind.STALE;
            default -> Kind.GENERATED;
        };
        boolean led = kind == Kind.GENERATED && r.headers().firstValue("X-Cache-Coalesced").isEmpty();
        return new Outcome(second, sent, entry, kind, led, "");
    }

    private static String failureName(Throwable failure) {
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        return cause instanceof java.net.http.HttpTimeoutException ? "timeout" : "connection";
    }
}
