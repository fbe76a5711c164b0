package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.json;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.Embedding;
import com.openai.models.embeddings.EmbeddingCreateParams;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testing.NettyLeakCheck;
import io.cachegate.testing.RedisTestServer;
import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Embeddings batches cached per item, on Redis, with the official OpenAI Java SDK and raw HTTP: a half-seen batch
 * sends only its unseen items upstream (counted by the simulator) and the merged answer equals, vector for vector,
 * the backend's own answer to the whole batch.
 */
class EmbeddingItemsIT {

    private static final String MODEL = "llama-3.1-8b";
    private static final String EMBEDDINGS = "/v1/embeddings";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture
            // 0.05 ms of prefill per token: an embedding's cost grows with its inputs, as on a real backend.
            .withSimulator(SimulatorOptions.defaults().withPrefillMsPerToken(0.05))
            .env("REDIS", RedisTestServer::sharedUri)
            .policy("""
            server: {max_body_bytes: 4MiB}
            backends:
              - name: main
                model_version: "sim@1"
                timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}
            cache:
              exact: {store: redis, redis_uri: "${REDIS}", ttl: 10m, timeout: 500ms}
            """);

    @BeforeAll
    static void redisConnected() {
        assertThat(Poll.until(Duration.ofSeconds(10), EmbeddingItemsIT::storeAvailable)).as("redis connected").isTrue();
    }

    /** Entries written so far (a batch's items are stored after its answer has left, asynchronously). */
    private static long written() {
        try {
            return (long) metric(fixture.gateway(), "cachegate_cache_entries_written_total");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits until {@code entries} more entries than {@code before} are written to Redis. */
    private static void awaitWritten(long before, long entries) {
        assertThat(Poll.until(Duration.ofSeconds(10), () -> written() >= before + entries))
                .as("%d entries written", entries).isTrue();
    }

    private static boolean storeAvailable() {
        try {
            return metric(fixture.gateway(), "cachegate_cache_store_available") == 1;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code count} texts of one length (so their token shares are equal) unique to this run. */
    private static List<String> texts(String run, int from, int count) {
        return IntStream.range(from, from + count).mapToObj(i -> String.format("passage %04d of run %s", i, run)).toList();
    }

    private static EmbeddingCreateParams params(List<String> input, EmbeddingCreateParams.EncodingFormat format) {
        EmbeddingCreateParams.Builder b = EmbeddingCreateParams.builder().model(MODEL).inputOfArrayOfStrings(input);
        return format == null ? b.build() : b.encodingFormat(format).build();
    }

    private static List<List<Float>> vectors(CreateEmbeddingResponse response) {
        return response.data().stream().map(Embedding::embedding).toList();
    }

    private static void assertSameAnswer(CreateEmbeddingResponse actual, CreateEmbeddingResponse expected) {
        assertThat(actual.data()).hasSameSizeAs(expected.data());
        assertThat(actual.data().stream().map(Embedding::index).toList())
                .isEqualTo(LongStream.range(0, expected.data().size()).boxed().toList());
        assertThat(vectors(actual)).isEqualTo(vectors(expected));
        assertThat(vectors(actual).get(0)).isNotEmpty();
        assertThat(actual.model()).isEqualTo(expected.model());
        assertThat(actual.usage().promptTokens()).isEqualTo(expected.usage().promptTokens());
        assertThat(actual.usage().totalTokens()).isEqualTo(expected.usage().totalTokens());
    }

    @Test
    void sdk_halfSeenBatch_sendsOnlyTheUnseenItemsAndMergesInOrder() {
        for (EmbeddingCreateParams.EncodingFormat format : Arrays.asList(null, EmbeddingCreateParams.EncodingFormat.FLOAT,
                EmbeddingCreateParams.EncodingFormat.BASE64)) {
            String run = nonce();
            List<String> seen = texts(run, 0, 8);
            List<String> unseen = texts(run, 8, 8);
            // The half-seen batch interleaves seen and unseen items, so the merge must restore every position.
            List<String> mixed = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                mixed.add(unseen.get(i));
                mixed.add(seen.get(7 - i));
            }
            CreateEmbeddingResponse firstDirect = fixture.sdkDirect().embeddings().create(params(seen, format));
            CreateEmbeddingResponse expected = fixture.sdkDirect().embeddings().create(params(mixed, format));

            long inputs0 = fixture.sim().stats().embeddingInputs();
            long written0 = written();
            CreateEmbeddingResponse first = fixture.sdk("x").embeddings().create(params(seen, format));
            awaitWritten(written0, 8);
            long inputs1 = fixture.sim().stats().embeddingInputs();
            long requests1 = fixture.sim().stats().requests();
            CreateEmbeddingResponse merged = fixture.sdk("x").embeddings().create(params(mixed, format));
            awaitWritten(written0, 16);
            long inputs2 = fixture.sim().stats().embeddingInputs();
            CreateEmbeddingResponse repeat = fixture.sdk("x").embeddings().create(params(mixed, format));

            assertThat(inputs1 - inputs0).as("format %s: all-miss batch", format).isEqualTo(8);
            assertSameAnswer(first, firstDirect);
            assertThat(inputs2 - inputs1).as("format %s: only the unseen half goes upstream", format).isEqualTo(8);
            assertThat(fixture.sim().stats().requests() - requests1).as("one upstream call, then none").isEqualTo(1);
            assertSameAnswer(merged, expected);
            assertSameAnswer(repeat, expected);
            assertThat(fixture.sim().stats().embeddingInputs()).as("a fully cached batch").isEqualTo(inputs2);
        }
    }

    @Test
    void http_largeBatches_mergedOffTheEventLoop_equalTheBackend() throws Exception {
        // 120 vectors of 384 floats are ~560 KB: over the inline limit, so lookups and merges run on the worker.
        String run = nonce();
        List<String> seen = texts(run, 0, 60);
        List<String> mixed = new ArrayList<>(texts(run, 60, 60));
        mixed.addAll(seen);
        long written0 = written();
        post(body(seen, ""));
        awaitWritten(written0, 60);
        HttpResponse<String> merged = post(body(mixed, ""));
        awaitWritten(written0, 120);
        HttpResponse<String> hit = post(body(mixed, ""));
        JsonNode expected = json(RawHttp.post(fixture.sim().baseUrl().getPort(), EMBEDDINGS, body(mixed, "")).body());

        assertThat(xCache(merged)).isEqualTo("PARTIAL");
        assertThat(xCache(hit)).isEqualTo("HIT");
        assertThat(merged.body().length()).isGreaterThan(256 * 1024);
        for (HttpResponse<String> answer : List.of(merged, hit)) {
            JsonNode data = json(answer.body()).path("data");
            assertThat(data).hasSize(120);
            for (int i = 0; i < 120; i++) {
                assertThat(data.get(i).path("index").asInt()).isEqualTo(i);
                assertThat(data.get(i).path("embedding")).as("item %d", i).isEqualTo(expected.path("data").get(i).path("embedding"));
            }
            assertThat(json(answer.body()).path("usage").path("prompt_tokens"))
                    .isEqualTo(expected.path("usage").path("prompt_tokens"));
        }
    }

    @Test
    void http_headersSayHowManyItemsCameFromTheCache() throws Exception {
        String run = nonce();
        String seen = body(texts(run, 0, 3), "");
        long written0 = written();
        HttpResponse<String> miss = post(seen);
        awaitWritten(written0, 3);
        HttpResponse<String> partial = post(body(List.of(texts(run, 0, 1).get(0), "fresh " + run), ""));
        HttpResponse<String> hit = post(seen);

        assertThat(xCache(miss)).isEqualTo("MISS");
        assertThat(header(miss, "X-Cache-Items")).isEqualTo("0/3");
        assertThat(xCache(partial)).isEqualTo("PARTIAL");
        assertThat(header(partial, "X-Cache-Items")).isEqualTo("1/2");
        assertThat(xCache(hit)).isEqualTo("HIT");
        assertThat(header(hit, "X-Cache-Layer")).isEqualTo("exact");
        assertThat(header(hit, "X-Cache-Items")).isEqualTo("3/3");
        assertThat(json(hit.body()).path("data")).isEqualTo(json(miss.body()).path("data"));
        assertThat(json(hit.body()).path("usage").path("prompt_tokens"))
                .isEqualTo(json(miss.body()).path("usage").path("prompt_tokens"));
        assertThat(metric(fixture.gateway(), "cachegate_embedding_items_total", "source=\"cache\"")).isPositive();
        assertThat(metric(fixture.gateway(), "cachegate_embedding_batches_total", "outcome=\"partial\"")).isPositive();
        JsonNode stats = json(RawHttp.get(fixture.adminPort(), "/admin/stats").body()).path("embeddings");
        assertThat(stats.path("itemsFromCache").asLong()).isPositive();
        assertThat(stats.path("itemsSentUpstream").asLong()).isPositive();
        assertThat(stats.path("partialBatches").asLong()).isPositive();
    }

    @Test
    void http_duplicatesAreSentOnce_andTokenArraysAreItemsToo() throws Exception {
        String run = nonce();
        String a = "dup a " + run;
        String b = "dup b " + run;
        long before = fixture.sim().stats().embeddingInputs();
        HttpResponse<String> response = post(body(List.of(a, b, a, a), ""));
        JsonNode data = json(response.body()).path("data");

        assertThat(fixture.sim().stats().embeddingInputs() - before).isEqualTo(2);
        assertThat(data).hasSize(4);
        assertThat(data.get(2).path("embedding")).isEqualTo(data.get(0).path("embedding"));
        assertThat(data.get(3).path("index").asInt()).isEqualTo(3);
        assertThat(data.get(1).path("embedding")).isNotEqualTo(data.get(0).path("embedding"));

        int token = (int) (System.nanoTime() % 100_000) + 1000;
        String tokens = "{\"model\":\"" + MODEL + "\",\"input\":[[" + token + ",1],[" + token + ",2]]}";
        long written0 = written();
        post(tokens);
        awaitWritten(written0, 2);
        HttpResponse<String> halfSeen = post("{\"model\":\"" + MODEL + "\",\"input\":[[" + token + ",3],[" + token + ",2]]}");
        assertThat(xCache(halfSeen)).isEqualTo("PARTIAL");
        assertThat(json(halfSeen.body()).path("data").get(1).path("embedding"))
                .isEqualTo(json(RawHttp.post(fixture.sim().baseUrl().getPort(), EMBEDDINGS,
                        "{\"model\":\"" + MODEL + "\",\"input\":[[" + token + ",2]]}").body()).path("data").get(0).path("embedding"));
    }

    @Test
    void http_upstreamErrorOnTheMissingItems_passesThroughAndNothingIsStored() throws Exception {
        String run = nonce();
        List<String> items = texts(run, 0, 2);
        long written0 = written();
        post(body(items.subList(0, 1), "")); // one item cached under the float format
        awaitWritten(written0, 1);
        String bad = body(items, ",\"encoding_format\":\"hex\"");
        long before = fixture.sim().stats().requests();
        HttpResponse<String> first = RawHttp.post(fixture.port(), EMBEDDINGS, bad);
        HttpResponse<String> second = RawHttp.post(fixture.port(), EMBEDDINGS, bad);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(400);
        assertThat(json(first.body()).path("error").path("message").asText()).contains("encoding_format");
        assertThat(second.statusCode()).isEqualTo(400);
        assertThat(fixture.sim().stats().requests() - before).as("both reached the backend: nothing stored").isEqualTo(2);
    }

    @Test
    void http_oneInputOrTooManyItems_areCachedWholeAsBefore() throws Exception {
        String single = "{\"model\":\"" + MODEL + "\",\"input\":\"one text " + nonce() + "\"}";
        long written0 = written();
        post(single);
        awaitWritten(written0, 1); // until then an identical request follows the first one's answer (coalesced)
        HttpResponse<String> again = post(single);
        assertThat(xCache(again)).isEqualTo("HIT");
        assertThat(header(again, "X-Cache-Items")).isNull();

        String run = nonce();
        List<String> many = IntStream.range(0, 2049).mapToObj(i -> "t" + i + run).toList();
        NettyLeakCheck.sampled(() -> { // 2,049 vectors of JSON: 9 s with each buffer tracked, 2 s sampled
            HttpResponse<String> big = post(body(many, ""));
            assertThat(header(big, "X-Cache-Items")).as("over OpenAI's 2048: passed on whole").isNull();
            assertThat(json(big.body()).path("data")).hasSize(2049);
        });
    }

    /**
     * The figure: an all-miss batch of 64 against a half-seen one (32 seen + 32 new), alternating so both see the
     * same machine. Printed, never asserted on time; the items sent upstream are asserted. The leak detector
     * samples meanwhile: tracking every buffer tripled the time and is no part of the figure.
     */
    @Test
    void figure_halfSeenBatch_sendsHalfTheItems() throws Exception {
        NettyLeakCheck.sampled(this::halfSeenFigure);
    }

    private void halfSeenFigure() throws Exception {
        int rounds = Integer.getInteger("embedding.figure.rounds", 15);
        String run = nonce();
        long warm = written();
        post(body(texts(run, 0, 32), "")); // warm up, and the half every half-seen batch repeats
        awaitWritten(warm, 32);
        List<Long> missNanos = new ArrayList<>();
        List<Long> halfNanos = new ArrayList<>();
        long missItems = 0;
        long halfItems = 0;
        for (int r = 0; r < rounds; r++) {
            List<String> fresh = texts(run, 1000 + 200 * r, 64);
            long i0 = fixture.sim().stats().embeddingInputs();
            long w0 = written();
            long t0 = System.nanoTime();
            assertThat(xCache(post(body(fresh, "")))).isEqualTo("MISS");
            missNanos.add(System.nanoTime() - t0);
            awaitWritten(w0, 64); // between the timed calls: the half-seen batch must find its seen half
            long i1 = fixture.sim().stats().embeddingInputs();
            List<String> half = new ArrayList<>(texts(run, 0, 32));
            half.addAll(texts(run, 1100 + 200 * r, 32));
            t0 = System.nanoTime();
            assertThat(xCache(post(body(half, "")))).isEqualTo("PARTIAL");
            halfNanos.add(System.nanoTime() - t0);
            missItems += i1 - i0;
            halfItems += fixture.sim().stats().embeddingInputs() - i1;
        }
        assertThat(halfItems * 2).isEqualTo(missItems);
        double[] ratios = IntStream.range(0, rounds).mapToDouble(i -> (double) halfNanos.get(i) / missNanos.get(i))
                .sorted().toArray();
        System.out.printf("FIGURE embeddings: %d rounds of 64 items; upstream items all-miss %d, half-seen %d (%.0f%%);"
                        + " latency half-seen/all-miss median %.2f (p25 %.2f, p75 %.2f); medians %.1f ms vs %.1f ms%n",
                rounds, missItems, halfItems, 100.0 * halfItems / missItems, ratios[rounds / 2], ratios[rounds / 4],
                ratios[3 * rounds / 4], median(halfNanos) / 1e6, median(missNanos) / 1e6);
    }

    private static double median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    private static String body(List<String> input, String extra) {
        return "{\"model\":\"" + MODEL + "\",\"input\":[" + input.stream().map(CacheCalls::quote)
                .collect(Collectors.joining(",")) + "]" + extra + "}";
    }

    private static HttpResponse<String> post(String body) throws Exception {
        HttpResponse<String> response = RawHttp.post(fixture.port(), EMBEDDINGS, body);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }
}
