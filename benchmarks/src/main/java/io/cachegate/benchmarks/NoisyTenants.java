package io.cachegate.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The load of {@code bench overload --scenario noisy-tenant}: tenants of one class, each with its own clients in a
 * closed loop (a client sends its next streamed request when its answer has ended), through one gateway for a
 * while. What each tenant got: answers served (200) that ended inside the recorded window, their time to first
 * byte (the simulator sends its head with the first token), and the errors. Also Jain's fairness index and the
 * max-min fair shares it is taken against.
 */
final class NoisyTenants {

    /** A tenant of the load: its API key and how many clients it runs at once. */
    record Tenant(String id, String apiKey, int clients) {
    }

    /** What one tenant got in a phase. */
    record Served(String tenant, int clients, long answers, long errors, List<Double> ttftMillis) {

        double perSecond(double seconds) {
            return answers / seconds;
        }

        double p99Millis() {
            List<Double> sorted = new ArrayList<>(ttftMillis);
            Collections.sort(sorted);
            return BenchFleetCommand.percentile(sorted, 0.99);
        }
    }

    private static final AtomicLong PROMPTS = new AtomicLong();

    private final HttpClient http;
    private final int maxTokens;
    private final Duration timeout;

    NoisyTenants(HttpClient http, int maxTokens, Duration timeout) {
        this.http = http;
        this.maxTokens = maxTokens;
        this.timeout = timeout;
    }

    /** Runs every tenant's clients against {@code gateway} for {@code warmup} then {@code recorded}. */
    Map<String, Served> run(URI gateway, List<Tenant> tenants, Duration warmup, Duration recorded)
            throws InterruptedException {
        long start = System.nanoTime();
        long from = start + warmup.toNanos();
        long until = from + recorded.toNanos();
        Map<String, List<Double>> ttfts = new LinkedHashMap<>();
        Map<String, AtomicLong> answers = new LinkedHashMap<>();
        Map<String, AtomicLong> errors = new LinkedHashMap<>();
        List<Thread> threads = new ArrayList<>();
        for (Tenant t : tenants) {
            List<Double> mine = Collections.synchronizedList(new ArrayList<>());
            ttfts.put(t.id(), mine);
            answers.put(t.id(), new AtomicLong());
            errors.put(t.id(), new AtomicLong());
            for (int c = 0; c < t.clients(); c++) {
                Thread thread = new Thread(() -> loop(gateway, t, from, until, mine, answers.get(t.id()),
                        errors.get(t.id())), "noisy-tenant-" + t.id() + "-" + c);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
        }
        for (Thread thread : threads) {
            thread.join(Duration.ofNanos(until - System.nanoTime()).plus(timeout).plusSeconds(5).toMillis());
        }
        Map<String, Served> out = new LinkedHashMap<>();
        for (Tenant t : tenants) {
            out.put(t.id(), new Served(t.id(), t.clients(), answers.get(t.id()).get(), errors.get(t.id()).get(),
                    List.copyOf(ttfts.get(t.id()))));
        }
        return out;
    }

    /** One client: requests back to back until the window ends; only those ending inside it are counted. */
    private void loop(URI gateway, Tenant t, long from, long until, List<Double> ttfts, AtomicLong answers,
                      AtomicLong errors) {
        while (System.nanoTime() < until) {
            long sent = System.nanoTime();
            double ttft = Double.NaN;
            int status;
            try {
                HttpResponse<InputStream> r = http.send(request(gateway, t), HttpResponse.BodyHandlers.ofInputStream());
                status = r.statusCode();
                try (InputStream body = r.body()) {
                    if (body.read() >= 0) {
                        ttft = (System.nanoTime() - sent) / 1e6;
                    }
                    body.transferTo(java.io.OutputStream.nullOutputStream());
                }
            } catch (IOException e) {
                status = -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long ended = System.nanoTime();
            if (ended < from || ended > until) {
                continue;
            }
            if (status == 200 && !Double.isNaN(ttft)) {
                answers.incrementAndGet();
                ttfts.add(ttft);
            } else {
                errors.incrementAndGet();
            }
        }
    }

    private HttpRequest request(URI gateway, Tenant t) {
        // Sampled and distinct: no cache answers it, every request costs the backend.
        String body = "{\"model\":\"" + ChatRequests.MODEL + "\",\"stream\":true,\"temperature\":0.7,\"max_tokens\":"
                + maxTokens + ",\"messages\":[{\"role\":\"user\",\"content\":\"tenant " + t.id() + " question "
                + PROMPTS.incrementAndGet() + "\"}]}";
        return HttpRequest.newBuilder(gateway.resolve("/v1/chat/completions")).timeout(timeout)
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + t.apiKey())
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build();
    }

    /**
     * Max-min fair shares of {@code capacity} between tenants that each want at most {@code demands} (a tenant
     * wanting more than an equal split gets the split of what the others leave): what each is owed.
     */
    static Map<String, Double> maxMinShares(Map<String, Double> demands, double capacity) {
        Map<String, Double> shares = new LinkedHashMap<>();
        List<Map.Entry<String, Double>> byDemand = new ArrayList<>(demands.entrySet());
        byDemand.sort(Map.Entry.comparingByValue());
        double left = capacity;
        int remaining = byDemand.size();
        for (Map.Entry<String, Double> e : byDemand) {
            double share = Math.min(e.getValue(), left / remaining);
            shares.put(e.getKey(), share);
            left -= share;
            remaining--;
        }
        Map<String, Double> ordered = new LinkedHashMap<>();
        demands.keySet().forEach(k -> ordered.put(k, shares.get(k)));
        return ordered;
    }

    /** Jain's fairness index of {@code values}: 1 when all are equal, 1/n when one holds everything. */
    static double jain(List<Double> values) {
        double sum = 0;
        double squares = 0;
        for (double v : values) {
            sum += v;
            squares += v * v;
        }
        return squares == 0 ? 1 : sum * sum / (values.size() * squares);
    }
}
