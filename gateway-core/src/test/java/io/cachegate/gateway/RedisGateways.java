package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.Poll;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * Gateways over one Redis (standalone, Cluster or Sentinel URI) for the multi-gateway and failover tests: tenants
 * {@code tenants[i]} with API key {@code "k" + i}, one model version pin, the given exact store.
 */
final class RedisGateways {

    private RedisGateways() {
    }

    static String policy(String store, String redisUri, String pin, List<String> tenants) {
        StringBuilder tenantLines = new StringBuilder();
        for (int i = 0; i < tenants.size(); i++) {
            tenantLines.append("  - {id: ").append(tenants.get(i)).append(", api_keys: [k").append(i).append("]}\n");
        }
        return """
                backends:
                  - name: main
                    model_version: "%s"
                    timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}
                tenants:
                %scache:
                  exact: {store: %s, redis_uri: "%s", ttl: 10m, timeout: 100ms, l1_ttl: 10m}
                  # Off here: these tests count the keys and pub/sub connections of the store and its L1
                  # invalidations; coalescing across gateways has its own (FleetCoalescingIT).
                  fleet: {coalesce: false}
                """.formatted(pin, tenantLines, store, redisUri);
    }

    /** A gateway whose store has connected (until then requests bypass it). */
    static Gateway start(URI backend, String store, String redisUri, String pin, List<String> tenants) throws Exception {
        Gateway gw = Gateway.start(GatewayFixture.policyOn(backend, policy(store, redisUri, pin, tenants)));
        assertThat(Poll.until(Duration.ofSeconds(15), () -> storeAvailable(gw))).as("redis connected").isTrue();
        return gw;
    }

    static boolean storeAvailable(Gateway gw) {
        try {
            return metric(gw, "cachegate_cache_store_available") == 1;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A chat completion as tenant {@code k<i>}; fails on any status but 200. */
    static HttpResponse<String> post(Gateway gw, String key, String body, String... headers) throws Exception {
        String[] all = new String[headers.length + 2];
        all[0] = "Authorization";
        all[1] = "Bearer " + key;
        System.arraycopy(headers, 0, all, 2, headers.length);
        HttpResponse<String> response = RawHttp.post(gw.port(), CacheCalls.CHAT, body, all);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    /** Repeats the request until it is a hit (the write-back is asynchronous); false after {@code timeout}. */
    static boolean hitWithin(Duration timeout, Gateway gw, String key, String body) {
        return answeredWithin(timeout, gw, key, body, "HIT");
    }

    /**
     * True once the gateway answers {@code body} as {@code X-Cache: xCache} within {@code timeout}: an invalidation
     * another gateway published has reached this one's socket when the purge answers, and is applied as it is read.
     */
    static boolean answeredWithin(Duration timeout, Gateway gw, String key, String body, String xCache) {
        return Poll.untilChecked(timeout, () -> xCache(post(gw, key, body)).equals(xCache));
    }
}
