package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.content;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.json;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.streamedContent;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testing.RedisTestServer;
import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code stale_if_error} against a real backend that goes away: while the simulator is stopped, a request for an entry
 * past its TTL but within its stale window is answered 200 {@code X-Cache: STALE} (never an error), every other
 * request gets the documented 502/503; once the simulator is back, a stale entry is refreshed by one backend call.
 * On the memory store, on Redis and tiered (the entries live in the store for TTL + the window).
 */
class StaleIfErrorIT {

    /**
     * ttl 2s, stale_if_error 10s: an entry is fresh for 2s, may stand in until it is 12s old, then it is gone. The
     * window leaves 7 s for the writes and their write-backs on a loaded machine (5 s left 2 s: too few at load 20).
     */
    private static final long TTL_MILLIS = 2_000;
    private static final long WINDOW_END_MILLIS = 12_000;

    private static String policy(String store, String tenant, String strict) {
        // A 1 s Redis timeout, not the default 50 ms: this is about stale windows, and on a loaded machine (two test
        // JVMs beside a busy core) a write timed out at 50 ms and never reached the store.
        String redis = store.equals("memory") ? ""
                : ", redis_uri: \"" + RedisTestServer.sharedUri() + "\", timeout: 1s";
        return """
                backends:
                  - name: main
                    urls: ["${SIM}"]
                    model_version: "llama@stale-%s"
                    timeouts: {connect: 500ms, first_byte: 5s, idle: 5s, total: 30s}
                    health: {interval: 200ms, failures_to_eject: 3, eject_for: 300ms}
                tenants:
                  - {id: %s, api_keys: [%s-key]}
                  - {id: %s, api_keys: [%s-key]}
                cache:
                  exact: {store: %s%s, ttl: 1h, stale_if_error: 10s}
                routes:
                  - match: {tenant: %s}
                    cache: {ttl: 2s, stale_if_error: 0s}
                  - match: {model: "*"}
                    cache: {ttl: 2s}
                """.formatted(tenant, tenant, tenant, strict, strict, store, redis, strict);
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "redis", "tiered"})
    void backendDown_entriesInTheirStaleWindowAnswerStale_othersFail_refreshedByOneCallOnReturn(String store)
            throws Exception {
        String tenant = "stale" + nonce().replace("-", "");
        String strict = "strict" + nonce().replace("-", "");
        String key = tenant + "-key";
        BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults());
        int port = sim.port();
        try (Gateway gw = Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), policy(store, tenant, strict)))) {
            if (!store.equals("memory")) {
                assertThat(Poll.until(Duration.ofSeconds(15), () -> RedisGateways.storeAvailable(gw)))
                        .as("redis connected").isTrue();
            }
            String old = chat("written first, gone by the outage " + nonce());
            assertThat(xCache(call(gw, key, old))).isEqualTo("MISS");
            long oldWritten = System.currentTimeMillis(); // its createdAt is earlier: the first answer may be slow
            Thread.sleep(4_500);
            String inWindow = chat("stale during the outage " + nonce());
            String refreshedLater = chat("refreshed by one call " + nonce());
            String strictEntry = chat("a route without a stale window " + nonce());
            long writtenFrom = System.currentTimeMillis();
            HttpResponse<String> original = call(gw, key, inWindow);
            assertThat(xCache(original)).isEqualTo("MISS");
            assertThat(xCache(call(gw, key, refreshedLater))).isEqualTo("MISS");
            assertThat(xCache(call(gw, strict + "-key", strictEntry))).isEqualTo("MISS");
            long writtenTo = System.currentTimeMillis(); // the entries' createdAt lie in [writtenFrom, writtenTo]
            assertThat(xCache(call(gw, key, inWindow))).as("fresh within its TTL").isEqualTo("HIT");
            // Entries reach the store after their answer: wait for the writes before the backend goes.
            assertThat(Poll.untilChecked(Duration.ofSeconds(5),
                    () -> metric(gw, "cachegate_cache_entries_written_total") >= 4)).isTrue();

            sim.close();
            // The first entry past TTL + window (gone), the others past their TTL (a first run may be slow to get here).
            sleepUntil(Math.max(oldWritten + WINDOW_END_MILLIS + 300, writtenTo + TTL_MILLIS + 300));
            assertThat(System.currentTimeMillis() - writtenFrom).as("the others are within their window")
                    .isLessThan(WINDOW_END_MILLIS - 2_500);

            List<HttpResponse<String>> stale = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                stale.add(call(gw, key, inWindow));
                Thread.sleep(200);
            }
            for (HttpResponse<String> r : stale) {
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(xCache(r)).isEqualTo("STALE");
                assertThat(header(r, "X-Cache-Layer")).isEqualTo("exact");
                assertThat(Long.parseLong(header(r, "Age"))).isGreaterThanOrEqualTo(1);
                assertThat(header(r, "X-Cache-Stale"))
                        .matches("if-error; reason=(backend_unavailable|overloaded); past-ttl=[0-9]+");
                assertThat(content(r.body())).isEqualTo(content(original.body()));
            }
            // Identical requests at once: whether they lead, follow a leader (no lookup of their own) or come after.
            List<CompletableFuture<HttpResponse<String>>> atOnce = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                atOnce.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return call(gw, key, inWindow);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            for (CompletableFuture<HttpResponse<String>> f : atOnce) {
                HttpResponse<String> r = f.join();
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(xCache(r)).isEqualTo("STALE");
            }
            HttpResponse<String> streamed = RawHttp.post(gw.port(), CHAT,
                    inWindow.replace("\"temperature\":0", "\"temperature\":0,\"stream\":true"),
                    "Authorization", "Bearer " + key);
            assertThat(streamed.statusCode()).as(streamed.body()).isEqualTo(200);
            assertThat(xCache(streamed)).isEqualTo("STALE");
            assertThat(streamedContent(streamed.body())).isEqualTo(content(original.body()));

            assertDocumentedError(call(gw, key, old));                                   // past its window
            assertDocumentedError(call(gw, strict + "-key", strictEntry));              // route: stale_if_error 0s
            assertDocumentedError(call(gw, key, chat("never stored " + nonce())));       // nothing stored
            assertDocumentedError(call(gw, key, inWindow.replace("\"temperature\":0", "\"temperature\":0.7")));
            assertDocumentedError(call(gw, key, inWindow, "Cache-Control", "no-cache")); // the client said no
            assertDocumentedError(call(gw, key, inWindow, "Cache-Control", "max-age=600"));
            assertDocumentedError(call(gw, key, inWindow, "Cache-Control", "stale-if-error=0"));
            HttpResponse<String> clientBound = call(gw, key, inWindow, "Cache-Control", "max-age=600, max-stale=60");
            assertThat(clientBound.statusCode()).as(clientBound.body()).isEqualTo(200);
            assertThat(xCache(clientBound)).as("max-stale within the policy's window").isEqualTo("STALE");
            assertThat(metric(gw, "cachegate_cache_stale_total")).isEqualTo(13);
            assertThat(metric(gw, "cachegate_cache_lookups_total", "outcome=\"stale\"")).isEqualTo(13);

            // The backend returns on its port: a stale entry is not served any more, it is refreshed by one call.
            sim = BackendSimulator.start(SimulatorOptions.defaults().withPort(port));
            BackendSimulator back = sim;
            assertThat(Poll.untilChecked(Duration.ofSeconds(10),
                    () -> call(gw, key, chat("is it back " + nonce())).statusCode() == 200)).isTrue();
            long before = back.stats().requests();
            List<CompletableFuture<HttpResponse<String>>> together = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                together.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return call(gw, key, refreshedLater);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            for (CompletableFuture<HttpResponse<String>> f : together) {
                HttpResponse<String> r = f.join();
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(xCache(r)).isIn("MISS", "HIT");
                assertThat(header(r, "X-Cache-Stale")).isNull();
            }
            assertThat(back.stats().requests() - before).as("four requests, one refresh").isEqualTo(1);
            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () -> xCache(call(gw, key, refreshedLater))
                    .equals("HIT"))).as("the refreshed answer replaced the entry").isTrue();
            assertThat(back.stats().requests() - before).isEqualTo(1);
        } finally {
            sim.close();
        }
    }

    private static void assertDocumentedError(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isIn(502, 503);
        assertThat(xCache(r)).isNotEqualTo("STALE");
        assertThat(json(r.body()).path("error").path("code").asText()).isIn("upstream_unreachable", "overloaded");
    }

    private static HttpResponse<String> call(Gateway gw, String key, String body, String... headers)
            throws Exception {
        String[] all = new String[headers.length + 2];
        all[0] = "Authorization";
        all[1] = "Bearer " + key;
        System.arraycopy(headers, 0, all, 2, headers.length);
        return RawHttp.post(gw.port(), CHAT, body, all);
    }

    private static void sleepUntil(long wallMillis) throws InterruptedException {
        long left = wallMillis - System.currentTimeMillis();
        if (left > 0) {
            Thread.sleep(left);
        }
    }
}
