package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.purge;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testing.RedisTestServer;
import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Access labels, end users and signed entries end to end: a gateway on the shared redis-server with signed
 * entries, one tenant with key A holding [hr] and key B holding none. A's labelled entries are misses for B, B may
 * not declare hr, a reload taking hr from A takes effect on A's next request, a purge by user removes exactly that
 * user's entries, and a value changed or unsigned in Redis is never served. Tenants are random per run: the shared
 * Redis is never flushed.
 */
class AccessLabelsIT {

    private static final String TENANT = "t" + nonce();
    private static final String SIGNING_KEY = "an-it-signing-key-" + nonce() + "-of-enough-bytes";
    private static BackendSimulator sim;
    private static Path dir;
    private static Path policyFile;
    private static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        sim = BackendSimulator.start(SimulatorOptions.defaults());
        dir = Files.createTempDirectory("cachegate-labels-it");
        policyFile = dir.resolve("policy.yaml");
        write(policy("[hr]"));
        gateway = Gateway.start(TestPolicies.parse(Files.readString(policyFile)), policyFile);
        assertThat(Poll.untilChecked(Duration.ofSeconds(10), () ->
                metric(gateway, "cachegate_cache_store_available") == 1))
                .as("redis connected").isTrue();
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (sim != null) {
            sim.close();
        }
    }

    private static String policy(String aLabels) {
        return """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2, shutdown_grace: 2s}
                backends:
                  - name: main
                    urls: ["%s"]
                    model_version: "labels-it"
                    timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}
                tenants:
                  - id: %s
                    api_keys: [{key: a-key, labels: %s}, b-key]
                cache:
                  exact: {store: redis, redis_uri: "%s", ttl: 10m, timeout: 200ms, signing_key: "%s"}
                """.formatted(sim.baseUrl(), TENANT, aLabels, RedisTestServer.sharedUri(), SIGNING_KEY);
    }

    @Test
    void labelledEntry_missForAKeyWithoutTheLabel_whichMayNotDeclareIt() throws Exception {
        String body = chat("the hr handbook says " + nonce());
        HttpResponse<String> first = post("a-key", body, "X-Cache-Labels", "hr");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(xCache(first)).isEqualTo("MISS");
        assertThat(untilHit("a-key", body, "X-Cache-Labels", "hr")).isTrue();

        long before = sim.stats().requests();
        HttpResponse<String> b = post("b-key", body);
        assertThat(b.statusCode()).isEqualTo(200);
        assertThat(xCache(b)).as("B holds no hr").isEqualTo("MISS");
        assertThat(sim.stats().requests() - before).as("generated again for B").isEqualTo(1);
        // B's answer is filed under the unlabelled key (labels are part of the key): the labelled entry stays.
        assertThat(untilHit("b-key", body)).isTrue();
        assertThat(xCache(post("a-key", body, "X-Cache-Labels", "hr"))).as("B's write destroyed nothing")
                .isEqualTo("HIT");

        HttpResponse<String> forbidden = post("b-key", body, "X-Cache-Labels", "hr");
        assertThat(forbidden.statusCode()).isEqualTo(403);
        assertThat(forbidden.body()).contains("label_not_permitted").doesNotContain("HIT");
        assertThat(post("a-key", body, "X-Cache-Labels", "hr,").statusCode()).isEqualTo(400);
        // Two fields are one list (a client may add one per retrieved document): the second is enforced too.
        assertThat(post("a-key", body, "X-Cache-Labels", "hr", "X-Cache-Labels", "finance").statusCode())
                .as("A lacks finance, named in the second field").isEqualTo(403);
    }

    @Test
    void reloadRemovingTheLabelFromAsKey_takesEffectOnTheNextRequest() throws Exception {
        String body = chat("payroll question " + nonce());
        post("a-key", body, "X-Cache-Labels", "hr");
        assertThat(untilHit("a-key", body, "X-Cache-Labels", "hr")).isTrue();
        try {
            write(policy("[finance]"));
            HttpResponse<String> reload = RawHttp.post(gateway.adminPort(), "/admin/reload", "");
            assertThat(reload.statusCode()).as(reload.body()).isEqualTo(200);

            HttpResponse<String> after = post("a-key", body, "X-Cache-Labels", "hr");
            assertThat(after.statusCode()).isEqualTo(403);
            assertThat(after.body()).contains("label_not_permitted");
            assertThat(xCache(post("a-key", body))).isEqualTo("MISS");
        } finally {
            write(policy("[hr]"));
            assertThat(RawHttp.post(gateway.adminPort(), "/admin/reload", "").statusCode()).isEqualTo(200);
        }
        assertThat(xCache(post("a-key", body, "X-Cache-Labels", "hr"))).as("given back: readable again")
                .isEqualTo("HIT");
    }

    @Test
    void purgeByUser_removesExactlyThatUsersEntries_withTheirCount() throws Exception {
        String alice = "alice-" + nonce() + "@example.com";
        String bob = "bob-" + nonce();
        String[] aliceBodies = {withUser("alice one " + nonce(), alice), withUser("alice two " + nonce(), alice),
                withUser("alice labelled " + nonce(), alice)};
        String bobBody = withUser("bob one " + nonce(), bob);
        String nobody = chat("nobody's " + nonce());
        post("b-key", aliceBodies[0]);
        post("b-key", aliceBodies[1]);
        post("a-key", aliceBodies[2], "X-Cache-Labels", "hr");
        post("b-key", bobBody);
        post("b-key", nobody);
        assertThat(untilHit("b-key", aliceBodies[0])).isTrue();
        assertThat(untilHit("b-key", aliceBodies[1])).isTrue();
        assertThat(untilHit("a-key", aliceBodies[2], "X-Cache-Labels", "hr")).isTrue();
        assertThat(untilHit("b-key", bobBody)).isTrue();
        assertThat(untilHit("b-key", nobody)).isTrue();

        assertThat(purge(gateway, "{\"user\":" + quote(alice) + ",\"tenant\":\"" + TENANT + "\"}")).isEqualTo(3);

        assertThat(xCache(post("b-key", aliceBodies[0]))).isEqualTo("MISS");
        assertThat(xCache(post("a-key", aliceBodies[2], "X-Cache-Labels", "hr"))).isEqualTo("MISS");
        assertThat(xCache(post("b-key", bobBody))).isEqualTo("HIT");
        assertThat(xCache(post("b-key", nobody))).isEqualTo("HIT");
        HttpResponse<String> withTag = RawHttp.post(gateway.adminPort(), "/admin/purge",
                "{\"user\":\"x\",\"tag\":\"doc:1\"}");
        assertThat(withTag.statusCode()).isEqualTo(400);
    }

    @Test
    void redisValueTamperedOrUnsigned_isAMiss_neverServed() throws Exception {
        String tampered = chat("tampered " + nonce());
        String unsigned = chat("unsigned " + nonce());
        post("b-key", tampered);
        post("b-key", unsigned);
        assertThat(untilHit("b-key", tampered)).isTrue();
        assertThat(untilHit("b-key", unsigned)).isTrue();
        String pattern = "cg:v1:{" + TENANT + "}:labels-it:*";
        // Every entry of this tenant changed in Redis: one byte flipped in each, then the MAC cut off of each.
        String flipped = RedisTestServer.command(RedisTestServer.sharedUri(), "EVAL",
                "local n = 0; for _, k in ipairs(redis.call('KEYS', ARGV[1])) do "
                        + "local v = redis.call('GET', k); "
                        + "redis.call('SETRANGE', k, 30, string.char((string.byte(v, 31) + 1) % 256)); n = n + 1 end; "
                        + "return n", "0", pattern);
        assertThat(Long.parseLong(flipped.substring(1))).isPositive();
        long errors = (long) metric(gateway, "cachegate_cache_store_errors_total");
        assertThat(xCache(post("b-key", tampered))).isEqualTo("MISS");
        assertThat((long) metric(gateway, "cachegate_cache_store_errors_total")).isGreaterThan(errors);

        assertThat(untilHit("b-key", unsigned)).as("rewritten after the miss").isTrue();
        RedisTestServer.command(RedisTestServer.sharedUri(), "EVAL",
                "for _, k in ipairs(redis.call('KEYS', ARGV[1])) do local v = redis.call('GET', k); "
                        + "redis.call('SET', k, string.sub(v, 1, #v - 32), 'KEEPTTL') end; return 1", "0", pattern);
        assertThat(xCache(post("b-key", unsigned))).as("CRC intact, no MAC").isEqualTo("MISS");
    }

    private static String withUser(String prompt, String user) {
        return chat(prompt, "\"user\":" + quote(user));
    }

    private static HttpResponse<String> post(String key, String body, String... headers) throws Exception {
        String[] all = new String[headers.length + 2];
        all[0] = "Authorization";
        all[1] = "Bearer " + key;
        System.arraycopy(headers, 0, all, 2, headers.length);
        return RawHttp.post(gateway.port(), CHAT, body, all);
    }

    /** Polls until the request is a HIT (the write after a miss is asynchronous). */
    private static boolean untilHit(String key, String body, String... headers) {
        return Poll.untilChecked(Duration.ofSeconds(5), () -> "HIT".equals(xCache(post(key, body, headers))));
    }

    private static void write(String yaml) throws Exception {
        Path tmp = Files.createTempFile(dir, "policy", ".tmp");
        Files.writeString(tmp, yaml);
        Files.move(tmp, policyFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
