package io.cachegate.config;

import static io.cachegate.config.CacheKeys.COLLECTION;
import static io.cachegate.config.CacheKeys.COMPRESS_ABOVE;
import static io.cachegate.config.CacheKeys.DECISION;
import static io.cachegate.config.CacheKeys.EMBEDDER_MODEL;
import static io.cachegate.config.CacheKeys.ENABLED;
import static io.cachegate.config.CacheKeys.EXACT_STORE;
import static io.cachegate.config.CacheKeys.EXACT_TTL;
import static io.cachegate.config.CacheKeys.INTER_OP_THREADS;
import static io.cachegate.config.CacheKeys.INTRA_OP_THREADS;
import static io.cachegate.config.CacheKeys.L1_MAX_BYTES;
import static io.cachegate.config.CacheKeys.L1_TTL;
import static io.cachegate.config.CacheKeys.MAX_BATCH;
import static io.cachegate.config.CacheKeys.MAX_BYTES;
import static io.cachegate.config.CacheKeys.MAX_ENTRIES;
import static io.cachegate.config.CacheKeys.MAX_TOKENS;
import static io.cachegate.config.CacheKeys.MAX_WAIT;
import static io.cachegate.config.CacheKeys.MODEL;
import static io.cachegate.config.CacheKeys.NEIGHBOURS;
import static io.cachegate.config.CacheKeys.NORMALIZE;
import static io.cachegate.config.CacheKeys.PATH;
import static io.cachegate.config.CacheKeys.POOLING;
import static io.cachegate.config.CacheKeys.QDRANT_API_KEY;
import static io.cachegate.config.CacheKeys.QDRANT_HOST;
import static io.cachegate.config.CacheKeys.QDRANT_PORT;
import static io.cachegate.config.CacheKeys.QDRANT_TIMEOUT;
import static io.cachegate.config.CacheKeys.QUEUE_SIZE;
import static io.cachegate.config.CacheKeys.REDIS_QUEUE_SIZE;
import static io.cachegate.config.CacheKeys.REDIS_URI;
import static io.cachegate.config.CacheKeys.SEMANTIC_STORE;
import static io.cachegate.config.CacheKeys.SEMANTIC_TTL;
import static io.cachegate.config.CacheKeys.SIGNING_KEY;
import static io.cachegate.config.CacheKeys.SWEEP_INTERVAL;
import static io.cachegate.config.CacheKeys.THRESHOLD;
import static io.cachegate.config.CacheKeys.TIMEOUT;
import static io.cachegate.config.CacheKeys.TLS;
import static io.cachegate.config.CacheKeys.TOKENIZER;
import static io.cachegate.config.CacheKeys.WORKERS;

import com.google.re2j.PatternSyntaxException;
import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/** Reads the {@code cache} section (keys in {@link CacheKeys}): the exact store and the semantic index. */
final class CacheReader {

    /** A pattern's name shows in debug logs next to the built-in kinds (email, payment_card, ...). */
    private static final Pattern PATTERN_NAME = Pattern.compile("[A-Za-z0-9_]{1,64}");

    private CacheReader() {
    }

    static CacheSettings read(Fields root) {
        Fields cache = root.section(CacheKeys.SECTION);
        if (cache == null) {
            return CacheSettings.defaults();
        }
        return new CacheSettings(exact(cache), semantic(cache), sensitivePatterns(cache), fleet(cache));
    }

    private static FleetSettings fleet(Fields cache) {
        Fields fleet = cache.section(CacheKeys.FLEET);
        if (fleet == null) {
            return FleetSettings.defaults();
        }
        return new FleetSettings(fleet.get(CacheKeys.FLEET_COALESCE), fleet.get(CacheKeys.FLEET_MAX_WAIT),
                fleet.get(CacheKeys.FLEET_MAX_WAITERS), fleet.get(CacheKeys.FLEET_LEASE_TTL),
                fleet.get(CacheKeys.FLEET_SHARE_EVIDENCE), fleet.get(CacheKeys.FLEET_EVIDENCE_EVENTS));
    }

    /** {@code sensitive_patterns}: unique names, each regex compiled here so a bad one fails with its line. */
    private static List<SensitivePattern> sensitivePatterns(Fields cache) {
        Section section = CacheKeys.SENSITIVE_PATTERNS;
        List<Node> items = cache.items(section.name());
        if (items == null) {
            return List.of();
        }
        List<SensitivePattern> patterns = new ArrayList<>();
        Map<String, Integer> nameLines = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Fields fields = cache.reader().fields(items.get(i), cache.path(section.name()) + "[" + i + "]",
                    section.names());
            if (fields == null) {
                continue;
            }
            Optional<String> name = fields.get(CacheKeys.PATTERN_NAME);
            Optional<String> regex = fields.get(CacheKeys.PATTERN_REGEX);
            String nameKey = CacheKeys.PATTERN_NAME.name();
            if (name.isPresent() && !PATTERN_NAME.matcher(name.get()).matches()) {
                fields.problem(nameKey, Durations.quote(name.get())
                        + " is not a pattern name: letters, digits and _ only (at most 64)");
                continue;
            }
            if (name.isPresent()) {
                Integer first = nameLines.putIfAbsent(name.get(), fields.line(nameKey));
                if (first != null) {
                    fields.problem(nameKey, Durations.quote(name.get()) + " is already the name of the pattern on line "
                            + first);
                    continue;
                }
            }
            if (name.isEmpty() || regex.isEmpty()) {
                continue; // reported as required
            }
            try {
                patterns.add(new SensitivePattern(name.get(), regex.get()));
            } catch (PatternSyntaxException e) {
                fields.problem(CacheKeys.PATTERN_REGEX.name(), "is not a valid RE2 regular expression: "
                        + e.getDescription() + " (RE2 has no backreferences or lookaround)");
            }
        }
        return patterns;
    }

    private static ExactCacheSettings exact(Fields cache) {
        Fields exact = cache.section(CacheKeys.EXACT);
        if (exact == null) {
            return ExactCacheSettings.defaults();
        }
        String redisUri = exact.get(REDIS_URI);
        Duration timeout = exact.get(TIMEOUT);
        return new ExactCacheSettings(
                exact.get(EXACT_STORE),
                redisUri,
                exact.get(EXACT_TTL),
                timeout,
                exact.get(MAX_BYTES),
                exact.get(L1_TTL),
                exact.get(L1_MAX_BYTES),
                exact.get(COMPRESS_ABOVE),
                exact.get(REDIS_QUEUE_SIZE),
                exact.get(SIGNING_KEY),
                health(exact, timeout),
                exact.get(CacheKeys.STALE_IF_ERROR),
                exact.get(CacheKeys.STALE_WHILE_REVALIDATE));
    }

    /** {@code cache.exact.health}: min_calls within the window, timeout_max not below the command timeout. */
    private static StoreHealthSettings health(Fields exact, Duration timeout) {
        Fields health = exact.section(CacheKeys.HEALTH);
        if (health == null) {
            return StoreHealthSettings.defaults();
        }
        int window = health.get(CacheKeys.HEALTH_WINDOW);
        int minCalls = health.get(CacheKeys.HEALTH_MIN_CALLS);
        if (minCalls > window) {
            health.problem(CacheKeys.HEALTH_MIN_CALLS.name(), minCalls + " is more than window (" + window
                    + "): the window never holds that many operations");
            minCalls = window;
        }
        Duration timeoutMax = health.get(CacheKeys.HEALTH_TIMEOUT_MAX);
        if (health.has(CacheKeys.HEALTH_TIMEOUT_MAX.name()) && timeoutMax.compareTo(timeout) < 0) {
            health.problem(CacheKeys.HEALTH_TIMEOUT_MAX.name(), Durations.format(timeoutMax)
                    + " is less than cache.exact.timeout (" + Durations.format(timeout) + "), the least timeout");
            timeoutMax = timeout;
        }
        return new StoreHealthSettings(window, minCalls, health.get(CacheKeys.HEALTH_FAILURE_RATE),
                health.get(CacheKeys.HEALTH_SLOW_CALL_RATE), health.get(CacheKeys.HEALTH_SLOW_CALL),
                health.get(CacheKeys.HEALTH_OPEN_FOR), health.get(CacheKeys.HEALTH_PROBES), timeoutMax,
                health.get(CacheKeys.HEALTH_TIMEOUT_MULTIPLE));
    }

    private static SemanticCacheSettings semantic(Fields cache) {
        Fields semantic = cache.section(CacheKeys.SEMANTIC);
        if (semantic == null) {
            return SemanticCacheSettings.defaults();
        }
        return new SemanticCacheSettings(
                semantic.get(ENABLED),
                semantic.get(SEMANTIC_STORE),
                semantic.get(THRESHOLD),
                semantic.get(DECISION),
                semantic.get(CacheKeys.MAX_ERROR_RATE),
                semantic.get(CacheKeys.BUDGET_DELTA),
                semantic.get(NEIGHBOURS),
                semantic.get(SEMANTIC_TTL),
                semantic.get(PATH),
                qdrant(semantic),
                semantic.get(MAX_ENTRIES),
                semantic.get(SWEEP_INTERVAL),
                embedder(semantic),
                audit(semantic),
                semantic.get(CacheKeys.EMBED_EARLY),
                semantic.get(CacheKeys.SPECULATIVE_UPSTREAM));
    }

    /**
     * The {@code embedder} map. The model may also be given as {@code semantic.model}, the spelling
     * policies used before the embedder had settings of its own; giving both is a problem.
     */
    private static EmbedderSettings embedder(Fields semantic) {
        Fields embedder = semantic.section(CacheKeys.EMBEDDER);
        String model = semantic.get(MODEL);
        if (embedder == null) {
            return EmbedderSettings.BUNDLED_MODELS.contains(model)
                    ? EmbedderSettings.defaultsFor(model, Optional.empty()) : EmbedderSettings.defaults();
        }
        boolean fromEmbedder = embedder.has(EMBEDDER_MODEL.name());
        if (fromEmbedder) {
            if (semantic.has(MODEL.name())) {
                semantic.problem(MODEL.name(), "set both here and as embedder.model; keep embedder.model");
            }
            model = embedder.get(EMBEDDER_MODEL);
        }
        Optional<String> tokenizer = embedder.get(TOKENIZER);
        boolean bundled = EmbedderSettings.BUNDLED_MODELS.contains(model);
        if (bundled && tokenizer.isPresent()) {
            embedder.problem(TOKENIZER.name(), "is only for a model file; the bundled model brings its own tokenizer");
            tokenizer = Optional.empty();
        } else if (!bundled && tokenizer.isEmpty()) {
            String message = Durations.quote(model) + " is neither bundled nor a model file with"
                    + " embedder.tokenizer (the path of its tokenizer.json)";
            if (fromEmbedder) {
                embedder.problem(EMBEDDER_MODEL.name(), message);
            } else {
                semantic.problem(MODEL.name(), message);
            }
            model = EMBEDDER_MODEL.fallback();
        }
        return new EmbedderSettings(
                model,
                tokenizer,
                embedder.get(POOLING),
                embedder.get(NORMALIZE),
                embedder.get(MAX_TOKENS),
                embedder.has(MAX_BATCH.name()) ? embedder.get(MAX_BATCH) : EmbedderSettings.defaultMaxBatch(model),
                embedder.get(MAX_WAIT),
                embedder.get(QUEUE_SIZE),
                embedder.get(WORKERS),
                embedder.get(INTRA_OP_THREADS),
                embedder.get(INTER_OP_THREADS));
    }

    private static AuditSettings audit(Fields semantic) {
        Fields audit = semantic.section(CacheKeys.AUDIT);
        if (audit == null) {
            return AuditSettings.defaults();
        }
        return new AuditSettings(audit.get(CacheKeys.AUDIT_RATE), audit.get(CacheKeys.AUDIT_PER_SECOND),
                audit.get(CacheKeys.AUDIT_ANSWER_SIMILARITY), audit.get(CacheKeys.AUDIT_ON_WRONG));
    }

    private static QdrantSettings qdrant(Fields semantic) {
        Fields qdrant = semantic.section(CacheKeys.QDRANT);
        if (qdrant == null) {
            return QdrantSettings.defaults();
        }
        return new QdrantSettings(
                qdrant.get(QDRANT_HOST),
                qdrant.get(QDRANT_PORT),
                qdrant.get(COLLECTION),
                qdrant.get(QDRANT_API_KEY),
                qdrant.get(TLS),
                qdrant.get(QDRANT_TIMEOUT));
    }
}
