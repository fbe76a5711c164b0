package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Random requests, spelled at random (key order, number spellings, defaults written or omitted,
 * answer-neutral fields), under random tenants, model versions and contexts. The key must be equal
 * exactly when the meaning of the request and the namespace are equal.
 */
class ExactKeyPropertyTest {

    private static final int CASES = 1_000;
    private static final List<String> TENANTS = List.of("acme", "globex", "a:b", CacheKey.SHARED_TENANT);
    private static final List<String> MODEL_VERSIONS = List.of("llama@1", "llama@2");
    private static final List<String> CONTEXTS = List.of(ContextHash.NONE,
            ContextHash.of(Optional.of("kb-1"), Optional.empty()));
    private static final List<String> TEXTS = List.of("Hi", "What is 2+2?", "Be brief.");

    /** What the request means once defaults are applied: equal meanings must share a key. */
    record Meaning(String model, List<List<String>> messages, int temperature, Integer seed, Integer maxTokens,
                   String stop) {
    }

    record Case(Meaning meaning, String tenant, String modelVersion, String context, String json, byte[] canonical,
                CacheKey key) {
        boolean sameNamespace(Case other) {
            return tenant.equals(other.tenant) && modelVersion.equals(other.modelVersion) && context.equals(other.context);
        }
    }

    @Test
    void keys_equalExactlyWhenMeaningAndNamespaceAreEqual() {
        SplittableRandom random = new SplittableRandom(20240705L);
        ExactKeyFactory factory = new ExactKeyFactory();
        List<Case> cases = new ArrayList<>(CASES);
        for (int i = 0; i < CASES; i++) {
            Meaning meaning = meaning(random);
            String json = spell(meaning, random);
            byte[] canonical = CanonicalRequest.of(Dialect.CHAT, CanonicalRequestTest.body(json), CanonicalOptions.DEFAULTS);
            String tenant = pick(TENANTS, random);
            String modelVersion = pick(MODEL_VERSIONS, random);
            String context = pick(CONTEXTS, random);
            cases.add(new Case(meaning, tenant, modelVersion, context, json, canonical,
                    factory.key(tenant, modelVersion, context, canonical)));
        }

        int sameKeyPairs = 0;
        int sameMeaningOtherTenantPairs = 0;
        for (int i = 0; i < cases.size(); i++) {
            for (int j = i + 1; j < cases.size(); j++) {
                Case a = cases.get(i);
                Case b = cases.get(j);
                boolean sameMeaning = a.meaning.equals(b.meaning);
                assertThat(Arrays.equals(a.canonical, b.canonical))
                        .as("canonical bytes equal iff same meaning:%n%s%n%s", a.json, b.json).isEqualTo(sameMeaning);
                boolean sameTuple = sameMeaning && a.sameNamespace(b);
                assertThat(a.key.equals(b.key)).as("key equal iff same tuple:%n%s%n%s", a, b).isEqualTo(sameTuple);
                assertThat(a.key.digest().equals(b.key.digest())).isEqualTo(sameTuple);
                assertThat(a.key.redisKey().equals(b.key.redisKey())).isEqualTo(sameTuple);
                if (!a.tenant.equals(b.tenant)) {
                    assertThat(a.key.digest()).isNotEqualTo(b.key.digest());
                    sameMeaningOtherTenantPairs += sameMeaning ? 1 : 0;
                }
                sameKeyPairs += sameTuple ? 1 : 0;
            }
        }
        // The pools are small on purpose: the interesting pairs must actually occur.
        assertThat(sameKeyPairs).isGreaterThan(50);
        assertThat(sameMeaningOtherTenantPairs).isGreaterThan(200);
    }

    @Test
    void store_neverReturnsAnotherTenantsEntry() {
        SplittableRandom random = new SplittableRandom(7L);
        ExactKeyFactory factory = new ExactKeyFactory();
        Map<String, String> store = new HashMap<>(); // Redis key -> tenant that wrote it
        int hits = 0;
        for (int i = 0; i < CASES; i++) {
            Meaning meaning = meaning(random);
            String tenant = pick(TENANTS, random);
            byte[] canonical = CanonicalRequest.of(Dialect.CHAT, CanonicalRequestTest.body(spell(meaning, random)),
                    CanonicalOptions.DEFAULTS);
            String redisKey = factory.key(tenant, MODEL_VERSIONS.get(0), ContextHash.NONE, canonical).redisKey();
            String owner = store.putIfAbsent(redisKey, tenant);
            if (owner != null) {
                hits++;
                assertThat(owner).isEqualTo(tenant);
            }
        }
        assertThat(hits).isGreaterThan(100);
    }

    private static Meaning meaning(SplittableRandom random) {
        List<List<String>> messages = new ArrayList<>();
        if (random.nextInt(3) == 0) {
            messages.add(List.of("system", pick(TEXTS, random)));
        }
        // Now and then a one-off text, so not every meaning repeats.
        String text = random.nextInt(10) == 0 ? "unique " + random.nextLong() : pick(TEXTS, random);
        messages.add(List.of("user", text));
        return new Meaning(
                random.nextBoolean() ? "m" : "m2",
                List.copyOf(messages),
                random.nextBoolean() ? 0 : 1,
                random.nextBoolean() ? null : 7,
                random.nextBoolean() ? null : 100,
                random.nextBoolean() ? null : "END");
    }

    /** One of the many JSON texts that mean {@code meaning}. */
    private static String spell(Meaning meaning, SplittableRandom random) {
        List<String> fields = new ArrayList<>();
        fields.add(q("model") + ":" + q(meaning.model()));
        List<String> messages = new ArrayList<>();
        for (List<String> message : meaning.messages()) {
            messages.add(object(random, q("role") + ":" + q(message.get(0)), q("content") + ":" + q(message.get(1))));
        }
        fields.add(q("messages") + ":[" + String.join(",", messages) + "]");
        if (meaning.temperature() != 1 || random.nextBoolean()) {
            fields.add(q("temperature") + ":" + number(meaning.temperature(), random));
        }
        if (meaning.seed() != null) {
            fields.add(q("seed") + ":" + number(meaning.seed(), random));
        } else if (random.nextInt(4) == 0) {
            fields.add(q("seed") + ":null");
        }
        if (meaning.maxTokens() != null) {
            String name = random.nextBoolean() ? "max_tokens" : "max_completion_tokens";
            fields.add(q(name) + ":" + number(meaning.maxTokens(), random));
        }
        if (meaning.stop() != null) {
            fields.add(q("stop") + ":" + (random.nextBoolean() ? q(meaning.stop()) : "[" + q(meaning.stop()) + "]"));
        } else {
            String[] nothing = {null, "null", "[]"};
            String spelling = nothing[random.nextInt(nothing.length)];
            if (spelling != null) {
                fields.add(q("stop") + ":" + spelling);
            }
        }
        if (random.nextBoolean()) {
            fields.add(q("top_p") + ":" + number(1, random));
        }
        if (random.nextBoolean()) {
            fields.add(q("n") + ":" + number(1, random));
        }
        if (random.nextBoolean()) {
            fields.add(q("stream") + ":" + random.nextBoolean());
        }
        if (random.nextBoolean()) {
            fields.add(q("user") + ":" + q("user-" + random.nextInt(5)));
        }
        if (random.nextInt(4) == 0) {
            fields.add(q("metadata") + ":" + object(random, q("trace") + ":" + q("t" + random.nextInt(100))));
        }
        return object(random, fields.toArray(String[]::new));
    }

    private static String object(SplittableRandom random, String... fields) {
        List<String> shuffled = new ArrayList<>(List.of(fields));
        Collections.shuffle(shuffled, new Random(random.nextLong()));
        return "{" + String.join(random.nextBoolean() ? "," : " , ", shuffled) + "}";
    }

    private static String number(int value, SplittableRandom random) {
        List<String> spellings = new ArrayList<>(List.of(Integer.toString(value), value + ".0", value + "e0",
                value + ".000", value + "E+0"));
        if (value != 0) {
            spellings.add(value + "0e-1");
        } else {
            spellings.add("-0.0");
            spellings.add("0e7");
        }
        return spellings.get(random.nextInt(spellings.size()));
    }

    private static String q(String text) {
        return '"' + text + '"';
    }

    private static <T> T pick(List<T> items, SplittableRandom random) {
        return items.get(random.nextInt(items.size()));
    }

}
