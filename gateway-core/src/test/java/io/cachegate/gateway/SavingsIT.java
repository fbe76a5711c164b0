package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.json;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.simulator.SimulatorOptions;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What hits saved, through the gateway: tokens, cost at the policy's price for the model, and the upstream time
 * avoided (the route's recent upstream answers), in the metrics and in {@code /admin/stats}, by layer, route and
 * tenant. The simulator takes 40 ms to a first token, so a route's upstream time is known to be at least that.
 */
class SavingsIT {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator(SimulatorOptions.defaults().withTtftMs(40)).policy("""
            tenants:
              - {id: acme, api_keys: [acme-key]}
              - {id: globex, api_keys: [globex-key]}
            cache:
            prices:
              "qwen*": {input: 1000, output: 1000}
              "llama-3.1-*": {input: 2000000, output: 4000000}
              "llama-3.1-8b": {input: 1, output: 1}
            log: {access: off}
            """);

    @Test
    void hit_savesItsTokens_atTheFirstMatchingPrice_andTheRoutesUpstreamTime() throws Exception {
        String body = chat("what did this save " + nonce());
        HttpResponse<String> miss = RawHttp.post(fixture.port(), CHAT, body, "Authorization", "Bearer acme-key");
        assertThat(xCache(miss)).isEqualTo("MISS");
        JsonNode usage = json(miss.body()).path("usage");
        int prompt = usage.path("prompt_tokens").asInt();
        int completion = usage.path("completion_tokens").asInt();
        assertThat(prompt).isPositive();
        HttpResponse<String> hit = RawHttp.post(fixture.port(), CHAT, body, "Authorization", "Bearer acme-key");
        assertThat(xCache(hit)).isEqualTo("HIT");

        // "llama-3.1-*" comes first in the file: 2 per prompt token, 4 per completion token.
        double cost = 2.0 * prompt + 4.0 * completion;
        String[] labels = {"layer=\"exact\"", "tenant=\"acme\""};
        assertThat(metric(fixture.gateway(), "cachegate_cache_calls_avoided_total", labels)).isEqualTo(1);
        assertThat(metric(fixture.gateway(), "cachegate_cache_tokens_saved_total", labels)).isEqualTo(prompt + completion);
        assertThat(metric(fixture.gateway(), "cachegate_cache_cost_saved_total", labels)).isCloseTo(cost, within(1e-6));
        assertThat(metric(fixture.gateway(), "cachegate_cache_latency_saved_seconds_total", labels))
                .as("at least the simulator's time to first token").isGreaterThanOrEqualTo(0.04);
        assertThat(metric(fixture.gateway(), "cachegate_cache_calls_avoided_total", "tenant=\"globex\"")).isZero();

        JsonNode saved = json(RawHttp.get(fixture.adminPort(), "/admin/stats").body()).path("saved");
        assertThat(saved.path("byTenant").path("acme").path("tokens").asDouble()).isEqualTo(prompt + completion);
        assertThat(saved.path("byTenant").path("acme").path("cost").asDouble()).isCloseTo(cost, within(1e-6));
        assertThat(saved.path("byLayer").path("exact").path("calls").asDouble()).isEqualTo(1);
        assertThat(saved.path("byRoute").fieldNames()).toIterable().isNotEmpty();
        assertThat(saved.path("total").path("latencySeconds").asDouble()).isGreaterThanOrEqualTo(0.04);
    }
}
