package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code bench semantic --part correctness}: how often semantic hits are wrong, measured against the truth. A
 * simulator in {@code --answers} mode answers every labelled text with its label's answer, so a semantic hit is
 * right iff it carries the answer the simulator gives the query itself (asked directly, as the backend would be).
 * For each decision (a policy variant), a fresh gateway is warmed with the labelled warm stream and then replays
 * the query stream, audits at their default rate; hits and wrong hits are counted over the warm stream, the query
 * stream and the query stream's last half (after learning).
 */
final class SemanticCorrectnessBench {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Progress PROGRESS = new Progress("semantic correctness");

    /** One labelled text. */
    record Row(String text, String label) {
    }

    /** A decision to measure: its name in the report and its {@code cache.semantic} keys. */
    record Variant(String name, String semanticKeys) {
    }

    /** Lookups, semantic hits and wrong ones in one stretch of the stream. */
    record Tally(int requests, int exactHits, int semanticHits, int wrongHits) {

        Tally plus(Tally o) {
            return new Tally(requests + o.requests, exactHits + o.exactHits, semanticHits + o.semanticHits,
                    wrongHits + o.wrongHits);
        }

        double hitRate() {
            return requests == 0 ? 0 : (double) semanticHits / requests;
        }

        double wrongRate() {
            return semanticHits == 0 ? 0 : (double) wrongHits / semanticHits;
        }
    }

    /**
     * One variant's figures.
     *
     * @param audited audits the gateway made and their wrong verdicts; its own estimate of the wrong-hit rate
     */
    record Outcome(Variant variant, Tally warm, Tally queries, Tally lastHalf, long audited, long auditedWrong,
                   long explored, double seconds, long errors) {
    }

    private final CorrectnessOptions options;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    SemanticCorrectnessBench(CorrectnessOptions options) {
        this.options = options;
    }

    List<Outcome> run(BenchChildren children, int gatewayThreads) throws IOException, InterruptedException {
        List<Row> warm = rows(options.warm, options.warmOffset, options.warmLimit);
        List<Row> queries = rows(options.queries, options.queryOffset, options.queryLimit);
        Path answers = children.dir().resolve("answers.tsv");
        StringBuilder tsv = new StringBuilder("text\tlabel\n");
        for (List<Row> rows : List.of(warm, queries)) {
            rows.forEach(r -> tsv.append(r.text()).append('\t').append(r.label()).append('\n'));
        }
        Files.writeString(answers, tsv);
        ChildSimulator sim = children.simulator("sim", 1, "--answers", answers.toString()).awaitReady();
        PROGRESS.info("%d warm rows, %d query rows; simulator on %s", warm.size(), queries.size(), sim.uri());
        List<Outcome> outcomes = new ArrayList<>();
        for (Variant v : options.variants()) {
            outcomes.add(measure(children, gatewayThreads, sim, v, warm, queries));
        }
        return outcomes;
    }

    private Outcome measure(BenchChildren children, int gatewayThreads, ChildSimulator sim, Variant v, List<Row> warm,
                            List<Row> queries) throws IOException, InterruptedException {
        String slug = v.name().replaceAll("[^a-z0-9.]+", "-");
        GatewayPolicy policy = GatewayPolicy.of(gatewayThreads, sim).pinModelVersion().section("""
                cache:
                  exact: { store: memory }
                  semantic: { enabled: true, path: "%s", %s }
                """.formatted(children.dir().resolve("index-" + slug).toString().replace("\\", "/"),
                v.semanticKeys())).route("*", "cache: { exact: true, semantic: true }");
        ChildGateway g = children.gateway(slug, List.of(), policy).awaitReady();
        awaitWarm(g);
        long start = System.nanoTime();
        AtomicInteger errors = new AtomicInteger();
        PROGRESS.phase(v.name() + ": warm stream");
        List<Tally> w = replay(g, sim, warm, errors);
        PROGRESS.phase(v.name() + ": query stream");
        List<Tally> q = replay(g, sim, queries, errors);
        double seconds = (System.nanoTime() - start) / 1e9;
        String metrics = BenchScrapes.get(http, g.admin().resolve("/metrics"));
        children.stop(g.process());
        Tally all = q.get(0).plus(q.get(1));
        Outcome o = new Outcome(v, w.get(0).plus(w.get(1)), all, q.get(1), (long) count(metrics, "source=\"audit\""),
                (long) count(metrics, "source=\"audit\"", "verdict=\"wrong\""), (long) count(metrics,
                "source=\"explore\""), seconds, errors.get());
        PROGRESS.info("%s: queries %.1f%% hits, %.2f%% wrong; last half %.1f%% hits, %.2f%% wrong (%.0f s)", v.name(),
                100 * all.hitRate(), 100 * all.wrongRate(), 100 * q.get(1).hitRate(), 100 * q.get(1).wrongRate(),
                seconds);
        return o;
    }

    /**
     * Sends {@code rows} in order with {@link CorrectnessOptions#concurrency()} requests in flight; a semantic hit is
     * checked against the simulator's own answer to the row. Tallies the first and the second half.
     */
    private List<Tally> replay(ChildGateway g, ChildSimulator sim, List<Row> rows, AtomicInteger errors)
            throws InterruptedException {
        int[][] counts = new int[2][4];
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(options.concurrency);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < options.concurrency; w++) {
                workers.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < rows.size(); i = next.getAndIncrement()) {
                        int half = i < rows.size() / 2 ? 0 : 1;
                        int[] outcome = ask(g, sim, rows.get(i), errors);
                        synchronized (counts) {
                            for (int k = 0; k < 4; k++) {
                                counts[half][k] += outcome[k];
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : workers) {
                f.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
        return List.of(new Tally(counts[0][0], counts[0][1], counts[0][2], counts[0][3]),
                new Tally(counts[1][0], counts[1][1], counts[1][2], counts[1][3]));
    }

    /** {requests, exact hits, semantic hits, wrong semantic hits} of one row: 0 or 1 each. */
    private int[] ask(ChildGateway g, ChildSimulator sim, Row row, AtomicInteger errors) {
        try {
            HttpResponse<String> r = post(g.uri(), row.text());
            if (r.statusCode() != 200) {
                errors.incrementAndGet();
                return new int[4];
            }
            String layer = r.headers().firstValue("X-Cache-Layer").orElse("");
            if ("exact".equals(layer)) {
                return new int[] {1, 1, 0, 0};
            }
            if (!"semantic".equals(layer)) {
                return new int[] {1, 0, 0, 0};
            }
            boolean right = content(r.body()).equals(content(post(sim.uri(), row.text()).body()));
            return new int[] {1, 0, 1, right ? 0 : 1};
        } catch (IOException e) {
            errors.incrementAndGet();
            return new int[4];
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new int[4];
        }
    }

    private HttpResponse<String> post(URI base, String text) throws IOException, InterruptedException {
        String body = JSON.createObjectNode().put("model", ChatRequests.MODEL).put("temperature", 0)
                .set("messages", JSON.createArrayNode().add(JSON.createObjectNode().put("role", "user")
                        .put("content", text))).toString();
        return http.send(HttpRequest.newBuilder(base.resolve("/v1/chat/completions")).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private static String content(String body) throws IOException {
        JsonNode answer = JSON.readTree(body);
        return answer.path("choices").path(0).path("message").path("content").asText("");
    }

    /** Waits for {@code /ready}: the model and the index warmed up. */
    private void awaitWarm(ChildGateway g) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (http.send(HttpRequest.newBuilder(g.admin().resolve("/ready")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not up yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("gateway " + g.name() + " not ready after 120 s");
    }

    /** {@code cachegate_semantic_verdicts_total} with these labels; 0 before the first verdict. */
    private static double count(String scrape, String... labels) {
        double n = BenchScrapes.metric(scrape, "cachegate_semantic_verdicts_total", labels);
        return Double.isNaN(n) ? 0 : n;
    }

    /**
     * The rows of a {@code text<TAB>label} file with a header, shuffled with the seed (the same file and seed give
     * the same order, so a warm and a query range of one file never overlap), then {@code offset} and {@code limit}.
     */
    List<Row> rows(Path file, int offset, int limit) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Row> rows = new ArrayList<>();
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] parts = line.split("\t");
            if (parts.length >= 2 && !parts[0].isBlank()) {
                rows.add(new Row(parts[0].strip(), parts[1].strip()));
            }
        }
        Collections.shuffle(rows, new Random(options.seed));
        return rows.subList(Math.min(offset, rows.size()), Math.min(rows.size(), offset + limit));
    }
}
