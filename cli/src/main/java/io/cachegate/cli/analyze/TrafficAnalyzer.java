package io.cachegate.cli.analyze;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.admission.TokenEstimator;
import io.cachegate.cache.exact.CacheControl;
import io.cachegate.cache.exact.CanonicalOptions;
import io.cachegate.cache.exact.CanonicalRequest;
import io.cachegate.cache.exact.Cacheability;
import io.cachegate.cache.exact.ContextHash;
import io.cachegate.cache.exact.ExactKeyFactory;
import io.cachegate.cache.exact.RouteCachePolicy;
import io.cachegate.cache.exact.SemanticText;
import io.cachegate.cache.sensitive.SensitiveDataDetector;
import io.cachegate.config.Normalize;
import io.cachegate.config.PrefixAffinitySettings;
import io.cachegate.config.RouteCache;
import io.cachegate.config.SemanticCacheSettings;
import io.cachegate.gateway.cache.SemanticQuery;
import io.cachegate.routing.PrefixHashes;
import io.cachegate.routing.PrefixIndex;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Compares each request of a log with the ones before it, in order, as the gateway with the default policy would
 * see them: its exact key ({@link Cacheability}, {@link CanonicalRequest}, {@link ExactKeyFactory} under
 * {@link RouteCache#defaults()}), the same key with whitespace or case normalised, the prefix blocks a
 * prefix-affinity router hashes ({@link PrefixHashes} into one {@link PrefixIndex}, an ideal single replica), and
 * the {@link SemanticQuery} the semantic cache would embed. The model name stands for its model version and no
 * request carries {@code X-Cache-Context}: a log has neither. Single-threaded.
 */
final class TrafficAnalyzer {

    private static final String ALL = "*";
    private static final String OTHER = "(other)";

    private final AnalyzerSettings settings;
    private final boolean semantic;
    private final RouteCache route = RouteCache.defaults();
    private final RouteCachePolicy policy = RouteCachePolicy.of(route);
    private final ExactKeyFactory keys = new ExactKeyFactory();
    private final TokenEstimator tokens = TokenEstimator.heuristic();
    /** The default route's {@code cache.sensitive: no_store}: a request holding personal data or a secret is a BYPASS. */
    private final SensitiveDataDetector sensitive = SensitiveDataDetector.builtIn();
    private final int semanticMaxChars = SemanticCacheSettings.EmbedderSettings.defaults().maxTokens() - 2;
    private final DigestSet exact;
    private final DigestSet whitespace;
    private final DigestSet lowerCase;
    private final PrefixIndex prefixes;
    private final NearDuplicateIndex vectors;
    private final ScopeTally overall;
    private final Map<String, ScopeTally> groups = new LinkedHashMap<>();

    /** @param semantic prepare the semantic query of each request (off: no near-duplicate search, less work) */
    TrafficAnalyzer(AnalyzerSettings settings, boolean semantic) {
        this.settings = settings;
        this.semantic = semantic;
        this.exact = new DigestSet(settings.maxKeys());
        this.whitespace = new DigestSet(settings.maxKeys());
        this.lowerCase = new DigestSet(settings.maxKeys());
        this.prefixes = new PrefixIndex(settings.maxPrefixBlocks());
        this.vectors = new NearDuplicateIndex(settings.maxVectors());
        this.overall = tally(ALL, ALL);
    }

    /**
     * A request's keys and the text the semantic cache would embed (or why it would not), computed before its vector
     * is; {@code semantic} is null when the analyzer does no semantic search.
     */
    record Keyed(LoggedRequest request, long exactKey, long whitespaceKey, long caseKey,
                 SemanticQuery.Prepared semantic) {
    }

    Keyed key(LoggedRequest r) {
        ObjectNode body = r.request().body();
        String namespace = policy.namespace(r.tenant());
        String model = r.request().model();
        SemanticQuery.Prepared query = !semantic ? null : SemanticQuery.of(r.dialect(), body, route.embed(),
                route.semanticMaxTurns(), semanticMaxChars, policy.canonicalOptions(), keys, namespace, model,
                ContextHash.NONE);
        return new Keyed(r, digest(r, namespace, Normalize.NONE), digest(r, namespace, Normalize.WHITESPACE),
                digest(r, namespace, Normalize.CASE), query);
    }

    /** True when the semantic layer would compare this request (so it needs a vector), judged before it is seen. */
    boolean wantsVector(Keyed k) {
        return k.semantic() != null && k.semantic().query().isPresent() && !exact.contains(k.exactKey());
    }

    /** Records the request; {@code vector} is its embedded text, or null when the embedder is off. */
    void observe(Keyed k, float[] vector) {
        LoggedRequest r = k.request();
        boolean exactRepeat = exact.seenOrAdd(k.exactKey());
        boolean whitespaceRepeat = whitespace.seenOrAdd(k.whitespaceKey());
        boolean caseRepeat = lowerCase.seenOrAdd(k.caseKey());
        boolean deterministic = !Cacheability.decide(r.dialect(), r.request().body(), policy, CacheControl.NONE).bypassed();

        String prompt = r.request().promptText();
        boolean sensitiveData = sensitive.scan(prompt).any();
        // What the router hashes (ServePlanner): the model name first, so two models never share a prefix.
        String hashed = r.request().model() + "\n" + prompt;
        PrefixHashes blocks = PrefixHashes.of(hashed, settings.blockChars(),
                PrefixAffinitySettings.DEFAULT_MAX_BLOCKS_PER_PROMPT);
        int matched = prefixes.longestMatch(blocks);
        prefixes.record(blocks);
        long prefixChars = (long) matched * settings.blockChars();

        Optional<SemanticText.Ineligible> ineligible = exactRepeat || k.semantic() == null ? Optional.empty()
                : k.semantic().reason();
        float similarity = -1;
        if (!exactRepeat && vector != null && k.semantic() != null && k.semantic().query().isPresent()) {
            String scope = k.semantic().query().get().scope();
            similarity = vectors.bestSimilarity(scope, vector);
            vectors.add(scope, vector);
        }
        RequestFacts facts = new RequestFacts(r.tenant(), r.request().model(), deterministic, sensitiveData,
                exactRepeat, whitespaceRepeat, caseRepeat, hashed.length(), prefixChars, tokens.estimate(prompt),
                prefixChars == 0 ? 0 : tokens.estimate(hashed.subSequence(0, (int) prefixChars)),
                completionTokens(r.request().body()), ineligible, similarity);
        overall.add(facts);
        group(r.tenant(), r.request().model()).add(facts);
    }

    ScopeTally overall() {
        return overall;
    }

    /** Per tenant and model, in order of first appearance; {@code (other)} sums those beyond the cap. */
    Collection<ScopeTally> groups() {
        return groups.values();
    }

    AnalyzerSettings settings() {
        return settings;
    }

    /** True when a key set turned digests away (repeats after the cap under-counted). */
    boolean keysSaturated() {
        return exact.saturated() || whitespace.saturated() || lowerCase.saturated();
    }

    long distinctKeys() {
        return exact.size();
    }

    long vectorsEvicted() {
        return vectors.evicted();
    }

    private ScopeTally group(String tenant, String model) {
        // Joined by NUL: a name holding a NUL could at worst merge two groups, never lose a request.
        String key = tenant + '\u0000' + model;
        ScopeTally tally = groups.get(key);
        if (tally != null) {
            return tally;
        }
        if (groups.size() < settings.maxGroups()) {
            tally = tally(tenant, model);
            groups.put(key, tally);
            return tally;
        }
        return groups.computeIfAbsent(OTHER, k -> tally(OTHER, OTHER));
    }

    private ScopeTally tally(String tenant, String model) {
        return new ScopeTally(tenant, model, settings.thresholds(), settings.threshold());
    }

    private long digest(LoggedRequest r, String namespace, Normalize normalize) {
        byte[] canonical = CanonicalRequest.of(r.dialect(), r.request().body(),
                new CanonicalOptions(normalize, policy.keyOnUser()));
        String hex = keys.key(namespace, r.request().model(), ContextHash.NONE, canonical).digest();
        return Long.parseUnsignedLong(hex.substring(0, 16), 16);
    }

    private long completionTokens(ObjectNode body) {
        JsonNode max = body.has("max_completion_tokens") ? body.get("max_completion_tokens") : body.get("max_tokens");
        return max != null && max.canConvertToLong() && max.asLong() > 0 ? max.asLong() : settings.completionTokens();
    }
}
