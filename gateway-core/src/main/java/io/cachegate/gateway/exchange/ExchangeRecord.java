package io.cachegate.gateway.exchange;

import io.cachegate.cache.exact.BypassReason;
import io.cachegate.cache.exact.OriginSpan;
import java.util.ArrayList;
import java.util.List;

/**
 * What is known of one exchange, stated once by the stage that learns each fact (typed: a lookup status per cache
 * layer, a bypass reason, timings) and read once, when the exchange finishes, by its observers: the metrics, the
 * trace, the access log, the savings and the status page ({@link ExchangeObserver}). A fact nobody learned keeps
 * its "unknown" value: null, -1 or NaN. Confined to the exchange's event loop like the exchange itself.
 */
public final class ExchangeRecord {

    private StageStamps stages = StageStamps.NONE;
    private LookupStatus exactLookup;
    private LookupStatus semanticLookup;
    private BypassReason bypass;
    private boolean coalesced;
    private boolean missed;
    private boolean quotaFailOpen;
    private String fleetOutcome;
    private boolean fleetTakeover;
    private int[] embeddingItems;
    private OriginSpan answerOrigin;
    private OriginSpan traceOrigin;
    private long semanticStartNanos = -1;
    private long semanticEndNanos = -1;
    private String semanticFailedPart;
    private boolean semanticMatched;
    private double nearestSimilarity = Double.NaN;

    private String layer;
    private String staleCause;
    private double similarity = Double.NaN;
    private String originRequestId;
    private long entryAgeMillis = -1;
    private String modelVersion;
    private String trafficClass;
    private String kvBlocks;
    private int uncachedEstimate = -1;
    private long queueWaitNanos = -1;
    private String backend;
    /** Set when a hop of the route's fallback chain serves: its position (1 for the first) and its model. */
    private int fallbackHop;
    private String fallbackModel;
    private List<String> fallbackReasons;
    private long upstreamFirstByteNanos = -1;
    private long upstreamNanos = -1;
    private long upstreamStartNanos = -1;
    private int promptTokens = -1;
    private int completionTokens = -1;
    private long tokensSaved;
    private double costSaved;
    private long latencySavedNanos;
    private String reason;
    private long cacheLookupNanos = -1;
    private long cacheLookupStartNanos = -1;
    private long embedNanos = -1;
    private long searchNanos = -1;
    private String traceId;
    private byte[] answerBody;

    /** When the exchange entered and left each stage (stamped by the chain). */
    public StageStamps stages() {
        return stages;
    }

    void stages(StageStamps stamps) {
        this.stages = stamps;
    }

    /** How the exact layer's lookup went; null when the request never reached it. */
    public LookupStatus exactLookup() {
        return exactLookup;
    }

    public void exactLookup(LookupStatus status) {
        this.exactLookup = status;
    }

    /** How the semantic layer's lookup went; null when the request never reached it. */
    public LookupStatus semanticLookup() {
        return semanticLookup;
    }

    public void semanticLookup(LookupStatus status) {
        this.semanticLookup = status;
    }

    /** The semantic lookup failed open in {@code part} ({@code embed}, {@code search} or {@code fetch}). */
    public void semanticFailed(String part) {
        this.semanticLookup = LookupStatus.ERROR;
        this.semanticFailedPart = part;
    }

    /** The part of the semantic lookup that failed; null when none did. */
    public String semanticFailedPart() {
        return semanticFailedPart;
    }

    /**
     * What the semantic decision weighed: whether it matched, and the match's similarity or, for a miss, the
     * nearest neighbour's (NaN when the search found none).
     */
    public void semanticDecision(boolean matched, double similarity) {
        this.semanticMatched = matched;
        this.nearestSimilarity = similarity;
    }

    public boolean semanticMatched() {
        return semanticMatched;
    }

    /** The similarity the semantic decision weighed (see {@link #semanticDecision}); NaN without one. */
    public double nearestSimilarity() {
        return nearestSimilarity;
    }

    /**
     * The request bypasses the cache for {@code why}: the exact layer's lookup status is {@link LookupStatus#BYPASS}
     * (or {@code ERROR} for a store that failed) and the log's and trace's reason names it.
     */
    public void bypass(BypassReason why) {
        this.bypass = why;
        this.reason = why.tag();
        this.exactLookup = why == BypassReason.STORE_UNAVAILABLE ? LookupStatus.ERROR : LookupStatus.BYPASS;
    }

    /** Why the cache was bypassed; null when it was not. */
    public BypassReason bypass() {
        return bypass;
    }

    /** The tenant's limits could not be checked (a bucket failed): the request went on unlimited. */
    public void quotaFailedOpen() {
        this.quotaFailOpen = true;
    }

    public boolean quotaFailOpen() {
        return quotaFailOpen;
    }

    /** A cacheable request that no cache layer answered: it goes to a backend (its own call or a leader's). */
    public void missed() {
        this.missed = true;
    }

    /** Whether the request was a cacheable miss; a hit after all (a speculative lookup), or a stale answer, is not. */
    public boolean isMiss() {
        return missed && layer == null && staleCause == null;
    }

    /**
     * Answered from an exact entry past its TTL because the backend could not answer ({@code stale_if_error}): no
     * call was avoided, so it is not a hit.
     *
     * @param cause why the backend could not answer (see {@code ErrorKind.outage})
     */
    public void stale(String cause, String originRequestId, long entryAgeMillis, int promptTokens,
                      int completionTokens, OriginSpan origin) {
        this.staleCause = cause;
        this.exactLookup = LookupStatus.STALE;
        this.originRequestId = originRequestId;
        this.entryAgeMillis = entryAgeMillis;
        this.promptTokens = promptTokens;
        this.completionTokens = completionTokens;
        this.answerOrigin = origin;
    }

    /** Why a stale answer was served (the backend's failure), or null when none was. */
    public String staleCause() {
        return staleCause;
    }

    /** The request followed an identical request's call in this gateway and was served its answer. */
    public void coalesced(String leaderRequestId, OriginSpan leaderSpan) {
        this.coalesced = true;
        this.originRequestId = leaderRequestId;
        this.answerOrigin = leaderSpan;
        this.reason = "coalesced";
    }

    public boolean coalesced() {
        return coalesced;
    }

    /**
     * What coalescing across gateways did with the request: {@code led}, {@code joined}, {@code hit}, {@code miss},
     * {@code timeout}, {@code takeover}, {@code full}, {@code unavailable}, {@code cancelled}; null without one.
     */
    public String fleetOutcome() {
        return fleetOutcome;
    }

    public void fleetOutcome(String outcome) {
        this.fleetOutcome = outcome;
    }

    /** The fleet claim's holder had died (its lease lapsed) and this request took the claim over. */
    public void fleetTakeover() {
        this.fleetTakeover = true;
    }

    public boolean fleetTookOver() {
        return fleetTakeover;
    }

    /**
     * An embeddings batch cached per item: how many of its positions were cached, how many distinct inputs were
     * sent to the backend, how many positions repeated an input the batch already held.
     */
    public void embeddingItems(int cached, int missing, int repeated) {
        this.embeddingItems = new int[] {cached, missing, repeated};
    }

    /** {@link #embeddingItems(int, int, int)}'s three counts; null for any other request. */
    public int[] embeddingItems() {
        return embeddingItems;
    }

    /** The span of the request whose answer this one serves (a hit's entry, a leader's call); null when untraced. */
    public OriginSpan answerOrigin() {
        return answerOrigin;
    }

    /** This request's own span, set by the trace when sampled, to store with the answer it generates; else null. */
    public OriginSpan traceOrigin() {
        return traceOrigin;
    }

    public void traceOrigin(OriginSpan span) {
        this.traceOrigin = span;
    }

    /** The cache layer that answered: {@code exact} or {@code semantic}; null for an answer from a backend. */
    public String layer() {
        return layer;
    }

    /**
     * A hit: which layer, the entry it served (origin request id, age) and its usage, which is what the hit saved.
     *
     * @param similarity the cosine similarity of a semantic hit; NaN for an exact one
     */
    public void hit(String layer, double similarity, String originRequestId, long entryAgeMillis, int promptTokens,
                    int completionTokens, OriginSpan origin) {
        this.layer = layer;
        this.answerOrigin = origin;
        if ("exact".equals(layer)) {
            this.exactLookup = LookupStatus.HIT;
        } else {
            this.semanticLookup = LookupStatus.HIT;
        }
        this.similarity = similarity;
        this.originRequestId = originRequestId;
        this.entryAgeMillis = entryAgeMillis;
        this.promptTokens = promptTokens;
        this.completionTokens = completionTokens;
    }

    public double similarity() {
        return similarity;
    }

    /** The gateway id of the request whose answer was served (a hit's entry, a coalesced leader's); else null. */
    public String originRequestId() {
        return originRequestId;
    }

    public long entryAgeMillis() {
        return entryAgeMillis;
    }

    public String modelVersion() {
        return modelVersion;
    }

    public void modelVersion(String version) {
        this.modelVersion = version;
    }

    public String trafficClass() {
        return trafficClass;
    }

    public void trafficClass(String name) {
        this.trafficClass = name;
    }

    /** Time spent in an admission queue; -1 when the request was never offered to one. */
    public long queueWaitNanos() {
        return queueWaitNanos;
    }

    public void queueWaitNanos(long nanos) {
        this.queueWaitNanos = nanos;
    }

    public String backend() {
        return backend;
    }

    /**
     * For a kv_aware backend: the prompt's leading blocks each replica holds per its KV-cache events, in URL order,
     * over the prompt's full blocks ({@code "12,0,3/20"}); null when routing did not consult the index.
     */
    public String kvBlocks() {
        return kvBlocks;
    }

    public void kvBlocks(String perReplica) {
        this.kvBlocks = perReplica;
    }

    /**
     * The prompt tokens admission charged as not in the chosen replica's prefix cache (prefix affinity's estimate, or
     * kv_aware's from the replicas' events); -1 when the backend does not route by prefix.
     */
    public int uncachedEstimate() {
        return uncachedEstimate;
    }

    public void uncachedEstimate(int tokens) {
        this.uncachedEstimate = tokens;
    }

    /**
     * The request moved to hop {@code hop} of its route's fallback chain, whose model {@code model} answers, for
     * {@code reason} ({@code primary_down}, {@code context_length}, {@code overloaded}, ...); once per move.
     */
    public void fallback(int hop, String model, String reason) {
        this.fallbackHop = hop;
        this.fallbackModel = model;
        this.fallbackReasons = fallbackReasons == null ? List.of(reason) : append(fallbackReasons, reason);
    }

    private static List<String> append(List<String> list, String item) {
        List<String> longer = new ArrayList<>(list);
        longer.add(item);
        return List.copyOf(longer);
    }

    /** Why the request moved along its fallback chain, one reason per move; empty when it never did. */
    public List<String> fallbackReasons() {
        return fallbackReasons == null ? List.of() : fallbackReasons;
    }

    /** The fallback chain's hop that served (1 for the first); 0 while the route's own backend does. */
    public int fallbackHop() {
        return fallbackHop;
    }

    /** The model of the fallback hop that served; null while the route's own backend does. */
    public String fallbackModel() {
        return fallbackModel;
    }

    /** The upstream call began (its last attempt): the backend it went to, at this tick. */
    public void upstreamStarted(String backendName, long atNanos) {
        this.backend = backendName;
        this.upstreamStartNanos = atNanos;
    }

    /** When the last upstream attempt began, on the exchange's ticker; -1 before any. */
    public long upstreamStartNanos() {
        return upstreamStartNanos;
    }

    public long upstreamFirstByteNanos() {
        return upstreamFirstByteNanos;
    }

    public void upstreamFirstByteNanos(long nanos) {
        this.upstreamFirstByteNanos = nanos;
    }

    /** Time from sending upstream to the answer's end; -1 without a complete upstream answer. */
    public long upstreamNanos() {
        return upstreamNanos;
    }

    public void upstreamNanos(long nanos) {
        this.upstreamNanos = nanos;
    }

    /** The answer's usage.prompt_tokens (a hit: the stored answer's); -1 when unknown. */
    public int promptTokens() {
        return promptTokens;
    }

    public int completionTokens() {
        return completionTokens;
    }

    public void usage(int prompt, int completion) {
        this.promptTokens = prompt;
        this.completionTokens = completion;
    }

    public long tokensSaved() {
        return tokensSaved;
    }

    /** In the policy's price unit (per million tokens, as written there); 0 without a price. */
    public double costSaved() {
        return costSaved;
    }

    public long latencySavedNanos() {
        return latencySavedNanos;
    }

    public void saved(long tokens, double cost, long latencyNanos) {
        this.tokensSaved = tokens;
        this.costSaved = cost;
        this.latencySavedNanos = latencyNanos;
    }

    /** Why the cache was bypassed or the request refused (a bounded name such as {@code sensitive}); else null. */
    public String reason() {
        return reason;
    }

    public void reason(String why) {
        this.reason = why;
    }

    /**
     * The W3C trace id (32 lower-case hex digits) of this request's trace, set by the tracing observer; null when
     * it set none (the access log then reads the client's {@code traceparent}).
     */
    public String traceId() {
        return traceId;
    }

    public void traceId(String id) {
        this.traceId = id;
    }

    /**
     * The answer's body as the access log's text sees it: a hit's stored answer, or the start of a backend's
     * answer kept by the access log's tap (only with {@code log.include_text}); else null. Never to be modified.
     */
    public byte[] answerBody() {
        return answerBody;
    }

    public void answerBody(byte[] body) {
        this.answerBody = body;
    }

    /** Time of the exact-cache store lookup; -1 when there was none. */
    public long cacheLookupNanos() {
        return cacheLookupNanos;
    }

    /** When the exact-cache store lookup began, on the exchange's ticker; -1 without one. */
    public long cacheLookupStartNanos() {
        return cacheLookupStartNanos;
    }

    /** The exact-cache store lookup began at {@code startNanos} and took {@code nanos}. */
    public void cacheLookup(long startNanos, long nanos) {
        this.cacheLookupStartNanos = startNanos;
        this.cacheLookupNanos = nanos;
    }

    /** Time to embed the request's text for the semantic lookup; -1 when there was none. */
    public long embedNanos() {
        return embedNanos;
    }

    /** Time of the nearest-neighbour search; -1 when there was none. */
    public long searchNanos() {
        return searchNanos;
    }

    /**
     * The semantic lookup's parts, whether it hit or not (a miss's {@code Server-Timing} shows them too): it began
     * at {@code startNanos} on the exchange's ticker and decided {@code embed + search} later.
     */
    public void semanticLookup(long startNanos, long embed, long search) {
        this.semanticStartNanos = startNanos;
        this.embedNanos = embed;
        this.searchNanos = search;
    }

    /** When the semantic lookup began; -1 without one. */
    public long semanticStartNanos() {
        return semanticStartNanos;
    }

    /** When the semantic lookup decided (found the entry or not); -1 before. */
    public long semanticEndNanos() {
        return semanticEndNanos;
    }

    public void semanticDecided(long nanos) {
        this.semanticEndNanos = nanos;
    }
}
