package io.cachegate.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.config.Policy;
import io.cachegate.gateway.api.OpenAiRequestParser;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.gateway.request.BodyFacts;
import io.netty.buffer.ByteBufUtil;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The byte-identical fast path changes no key: for thousands of random bodies, a repeat that takes its parse and
 * key from the memo gets exactly the key the full path (a fresh parse, a fresh canonical form) gives, whatever the
 * tenant, context or model version; and a body that means the same in other bytes still meets the same key.
 */
class FastPathKeyTest {

    private static final String POLICY = """
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"]}
            cache:
              exact: {store: memory, ttl: 1h}
            """;
    private static final String[] WORDS = {"hello", "what", "is", "the", "capital", "of", "France", "café", "naïve",
        "tab\\t", "quote\\\"", "😀", "\\u00e9", "Paris", "why", "sky", "blue", "  spaced  "};
    private static final String[] TENANTS = {Exchange.DEFAULT_TENANT, "acme", "globex"};

    private final RecordingNext next = new RecordingNext();
    private final Policy policy = Exchanges.policy(POLICY);
    private final Exchanges exchanges = new Exchanges(policy);
    private final OpenAiRequestParser parser = new OpenAiRequestParser(policy.server().json());
    private final ModelVersions versions = new ModelVersions();
    private final CacheKeyStage stage = new CacheKeyStage(policy, new CacheKeys(policy, versions));

    @AfterEach
    void close() {
        exchanges.close();
    }

    @Test
    void fiveThousandRandomBodies_fastPathAndFullPath_giveTheSameKey() {
        Random random = new Random(30);
        versions.update("main", URI.create("http://replica-a:8000"), card("v1"));
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            // A third are repeats of an earlier body: the fast path's case, byte for byte.
            bodies.add(i > 0 && random.nextInt(3) == 0 ? bodies.get(random.nextInt(bodies.size())) : body(random));
        }
        int fast = 0;
        for (int i = 0; i < bodies.size(); i++) {
            if (i == 2_500) {
                versions.update("main", URI.create("http://replica-a:8000"), card("v2"));
            }
            String tenant = TENANTS[random.nextInt(TENANTS.length)];
            String context = random.nextInt(4) == 0 ? "ctx-" + random.nextInt(3) : null;
            Exchange memo = keyed(bodies.get(i), tenant, context, false);
            Exchange full = keyed(bodies.get(i), tenant, context, true);
            CacheKey fastKey = key(memo);
            assertThat(fastKey).as("body %d: %s", i, bodies.get(i)).isEqualTo(key(full));
            assertThat(memo.xCache()).isEqualTo(full.xCache());
            if (memo.get(BodyFacts.KEY) != null && memo.get(BodyFacts.KEY).parsed() == memo.parsed()
                    && bodies.indexOf(bodies.get(i)) < i) {
                fast++;
            }
        }
        assertThat(fast).as("repeats that took the fast path").isGreaterThan(1_000);
    }

    @Test
    void sameMeaningInOtherBytes_sameKey_otherTenantOrVersion_otherKey() {
        versions.update("main", URI.create("http://replica-a:8000"), card("v1"));
        String compact = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"caf\\u00e9\"}]}";
        String spaced = "{ \"messages\" : [ {\"content\":\"café\", \"role\":\"user\"} ], \"temperature\": 0,"
                + " \"model\": \"llama-3.1-8b\" }";
        CacheKey first = key(keyed(compact, "acme", null, false));
        assertThat(key(keyed(compact, "acme", null, false))).isEqualTo(first);
        assertThat(key(keyed(spaced, "acme", null, false))).isEqualTo(first);
        assertThat(key(keyed(compact, "globex", null, false))).isNotEqualTo(first);

        versions.update("main", URI.create("http://replica-a:8000"), card("v2"));
        CacheKey afterSwap = key(keyed(compact, "acme", null, false));
        assertThat(afterSwap).isNotEqualTo(first);
        assertThat(afterSwap).isEqualTo(key(keyed(compact, "acme", null, true)));
    }

    /**
     * An exchange of {@code body} through the front stages and the key stage; {@code full}: with a fresh parse and
     * no remembered facts, as before the fast path.
     */
    private Exchange keyed(String body, String tenant, String context, boolean full) {
        Exchange x = context == null ? exchanges.chat(body) : exchanges.chat(body, "X-Cache-Context", context);
        x.tenant(tenant);
        if (full) {
            x.set(BodyFacts.KEY, null);
            x.parsed(parser.parse(x.endpoint(), ByteBufUtil.getBytes(x.request().content())));
        }
        stage.handle(x, next);
        return x;
    }

    /** A replica's model list: both models, at {@code revision}. */
    private static JsonNode card(String revision) {
        String model = "{\"id\":\"%s\",\"root\":\"%s\",\"revision\":\"" + revision + "\"}";
        try {
            return new ObjectMapper().readTree("{\"data\":[" + model.formatted("llama-3.1-8b", "llama-3.1-8b") + ","
                    + model.formatted("llama-3.1-70b", "llama-3.1-70b") + "]}");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static CacheKey key(Exchange x) {
        CacheableRequest c = x.get(CacheableRequest.KEY);
        return c == null ? null : c.key();
    }

    /** A chat body with random content, fields in random order and random spacing; sometimes sampled (a bypass). */
    private static String body(Random random) {
        StringBuilder text = new StringBuilder();
        for (int i = 0, n = 1 + random.nextInt(6); i < n; i++) {
            text.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
        }
        List<String> fields = new ArrayList<>(List.of(
                "\"model\":\"" + (random.nextBoolean() ? "llama-3.1-8b" : "llama-3.1-70b") + "\"",
                "\"messages\":[" + (random.nextInt(4) == 0 ? "{\"role\":\"system\",\"content\":\"be brief\"}," : "")
                        + "{\"role\":\"user\",\"content\":\"" + text + "\"}]",
                "\"temperature\":" + (random.nextInt(5) == 0 ? "0.7" : "0")));
        if (random.nextBoolean()) {
            fields.add("\"max_tokens\":" + (1 + random.nextInt(64)));
        }
        if (random.nextInt(4) == 0) {
            fields.add("\"seed\":" + random.nextInt(3));
        }
        if (random.nextInt(4) == 0) {
            fields.add("\"stream\":" + random.nextBoolean());
        }
        Collections.shuffle(fields, random);
        String space = random.nextBoolean() ? "" : " ";
        return "{" + space + String.join("," + space, fields) + space + "}";
    }
}
