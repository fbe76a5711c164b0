package io.cachegate.gateway.exchange;

/**
 * What is known of one exchange for the access log, the trace and the savings, filled in by the stage that learns
 * each fact; read once, when the exchange finishes ({@link ExchangeObserver}). A fact nobody learned keeps its
 * "unknown" value: null, -1 or NaN. Confined to the exchange's event loop like the exchange itself.
 */
public final class ExchangeRecord {

    private String layer;
    private double similarity = Double.NaN;
    private String originRequestId;
    private long entryAgeMillis = -1;
    private String modelVersion;
    private String trafficClass;
    private long queueWaitNanos = -1;
    private String backend;
    /** Set when a hop of the route's fallback chain serves: its position (1 for the first) and its model. */
    private int fallbackHop;
    private String fallbackModel;
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
    private long embedNanos = -1;
    private long searchNanos = -1;
    private String traceId;
    private byte[] answerBody;

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
                    int completionTokens) {
        this.layer = layer;
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

    public void originRequestId(String id) {
        this.originRequestId = id;
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

    /** The request moved to hop {@code hop} of its route's fallback chain, whose model {@code model} answers. */
    public void fallback(int hop, String model) {
        this.fallbackHop = hop;
        this.fallbackModel = model;
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

    public void cacheLookupNanos(long nanos) {
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

    /** The semantic lookup's parts, whether it hit or not (a miss's {@code Server-Timing} shows them too). */
    public void semanticLookup(long embed, long search) {
        this.embedNanos = embed;
        this.searchNanos = search;
    }
}
