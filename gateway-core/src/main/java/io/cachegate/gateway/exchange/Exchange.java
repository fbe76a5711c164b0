package io.cachegate.gateway.exchange;

import io.cachegate.cache.semantic.HitEvidence;
import io.cachegate.config.ResolvedRoute;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.routing.ReplicaLease;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client request from the moment it is complete to the end of its answer: what the stages learned about it
 * (tenant, parsed body, route, cache state, replica lease), its {@link Answer} (the one way anything is written to
 * the client, with the taps and headers stages put on it), and its completion, which is recorded here once (status,
 * the record handed to the observers) whichever stage answered. Confined to the client's event loop.
 * Owns the request buffer and releases it when it finishes.
 */
public final class Exchange {

    private static final Logger log = LoggerFactory.getLogger(Exchange.class);
    public static final String DEFAULT_TENANT = "default";

    /** A typed slot in which a stage leaves state for the stages after it (like Netty's {@code AttributeKey}). */
    public record Key<T>(String name) {
        public static <T> Key<T> named(String name) {
            return new Key<>(name); // looked up by identity: two keys of one name are two slots
        }
    }

    private final ChannelHandlerContext ctx;
    private final Ticker ticker;
    private final String requestId;
    private final long startNanos;
    private final boolean keepAlive;
    private final Runnable onDone;
    private final ExchangeObserver observer;
    private final ExchangeRecord record = new ExchangeRecord();
    private final Answer answer;
    private final Holdings holdings = new Holdings();
    private Map<Key<?>, Object> state;
    /** A semantic lookup deciding while the stages go on ({@link Speculation}); read by each stage, so a field. */
    Speculation speculation;
    private FullHttpRequest request;
    private Endpoint endpoint;
    private String tenant = DEFAULT_TENANT;
    private List<String> keyLabels = List.of();
    private OpenAiRequest parsed;
    private ResolvedRoute route;
    private String routeLabel = "none";
    private CharSequence xCache = GatewayHeaders.BYPASS;
    private Runnable cancelHook;
    private StandIn standIn;
    private boolean cancelled;
    private boolean done;
    private boolean detached;

    /**
     * Takes ownership of {@code request}; {@code onDone} runs once when the exchange finishes, however.
     *
     * @param keepAlive whether the connection stays open after the answer
     * @param observer told when the exchange starts (now) and finishes: the metrics, the access log, the trace
     */
    public Exchange(ChannelHandlerContext ctx, FullHttpRequest request, String requestId, boolean keepAlive,
                    Ticker ticker, ExchangeObserver observer, Runnable onDone) {
        this.ctx = ctx;
        this.request = request;
        this.requestId = requestId;
        this.keepAlive = keepAlive;
        this.ticker = ticker;
        this.onDone = onDone;
        this.observer = observer;
        this.startNanos = ticker.nanos();
        this.answer = new Answer(this, ctx);
        observer.started(this);
    }

    public ChannelHandlerContext ctx() {
        return ctx;
    }

    /** What the stages learned for the access log, the trace and the savings. */
    public ExchangeRecord record() {
        return record;
    }

    public FullHttpRequest request() {
        return request;
    }

    /** Swaps the request for {@code replaced} (a fallback's model in the body); the old one is released. */
    public void replaceRequest(FullHttpRequest replaced) {
        if (replaced != request) {
            request.release();
            request = replaced;
        }
    }

    public String header(CharSequence name) {
        return request.headers().get(name);
    }

    /**
     * A list header's value: every field named {@code name}, in order, joined with commas (RFC 9110 5.3: several
     * fields of a list header are one list, and reading only the first would drop members); null when absent.
     */
    public String listHeader(CharSequence name) {
        List<String> fields = request.headers().getAll(name);
        return fields.isEmpty() ? null : fields.size() == 1 ? fields.get(0) : String.join(",", fields);
    }

    public String requestId() {
        return requestId;
    }

    public boolean keepAlive() {
        return keepAlive;
    }

    public Ticker ticker() {
        return ticker;
    }

    public long startNanos() {
        return startNanos;
    }

    public long elapsedNanos() {
        return ticker.nanos() - startNanos;
    }

    /** Null until the endpoint stage has named it. */
    public Endpoint endpoint() {
        return endpoint;
    }

    public void endpoint(Endpoint endpoint) {
        this.endpoint = endpoint;
    }

    public String endpointName() {
        return endpoint == null ? "unknown" : endpoint.metricName();
    }

    public String tenant() {
        return tenant;
    }

    public void tenant(String tenant) {
        this.tenant = tenant;
    }

    /** The access labels of the API key that authenticated this request; empty without tenants or labels. */
    public List<String> keyLabels() {
        return keyLabels;
    }

    public void keyLabels(List<String> labels) {
        this.keyLabels = List.copyOf(labels);
    }

    /** The parsed body; null for pass-through requests. */
    public OpenAiRequest parsed() {
        return parsed;
    }

    public void parsed(OpenAiRequest parsed) {
        this.parsed = parsed;
    }

    /** The model the request names, or "" when it names none. */
    public String model() {
        return parsed == null ? "" : parsed.model();
    }

    public ResolvedRoute route() {
        return route;
    }

    public void route(ResolvedRoute route) {
        this.route = route;
        this.routeLabel = route.route().label();
    }

    /**
     * Where the error budget keeps this request's evidence: its route (label and identity) and tenant
     * ({@link HitEvidence#scope(String, String, String)}); after routing.
     */
    public String evidenceScope() {
        return HitEvidence.scope(routeLabel, route.route().match().fingerprint(), tenant);
    }

    /** The route's label ({@link io.cachegate.config.Route#label}) for metrics, logs and evidence; "none" before. */
    public String routeLabel() {
        return routeLabel;
    }

    /** The {@code X-Cache} value an answer from the backend carries: MISS for a cacheable request, else BYPASS. */
    public CharSequence xCache() {
        return xCache;
    }

    public void xCache(CharSequence value) {
        this.xCache = value;
    }

    /** The way this exchange's answer leaves for the client, whoever writes it. */
    public Answer answer() {
        return answer;
    }

    /** Adds a header to this exchange's answer, whichever writes it (see {@link AnswerHeaders}). */
    public void responseHeader(CharSequence name, Object value) {
        answer.header(name, value);
    }

    /**
     * Puts a tap on this exchange's answer, whoever writes it; taps see it in the order they were added. A tap put on
     * while a speculative lookup is pending is let go when that lookup answers ({@link Answer#abortTentativeTaps}).
     */
    public void addTap(ResponseTap tap) {
        answer.addTap(tap, Speculation.pending(this));
    }

    /** The answer's taps, as one. */
    public ResponseTap taps() {
        return answer.taps();
    }

    @SuppressWarnings("unchecked")
    public <T> T get(Key<T> key) {
        return state == null ? null : (T) state.get(key);
    }

    public <T> void set(Key<T> key, T value) {
        if (state == null) {
            state = new IdentityHashMap<>(4);
        }
        state.put(key, value);
    }

    /** The replica reserved for this request; released when the exchange finishes unless released before. */
    public ReplicaLease lease() {
        return holdings.lease();
    }

    public void holdLease(ReplicaLease reserved) {
        holdings.holdLease(reserved);
    }

    public void releaseLease() {
        holdings.releaseLease();
    }

    /** Runs {@code hook} when the exchange finishes (an admission slot to give back). */
    public void whenFinished(Runnable hook) {
        holdings.whenFinished(hook);
    }

    /**
     * While a stage holds the exchange (a queue, a follower, a relay), what the client leaving does; the stage
     * must finish the exchange, now or when it is safe. Without a hook, leaving finishes it at once (499).
     */
    public void onCancel(Runnable hook) {
        this.cancelHook = hook;
    }

    /** The client went away. */
    public void cancel() {
        if (done || cancelled) {
            return;
        }
        cancelled = true;
        if (cancelHook != null) {
            cancelHook.run();
        } else {
            answer.abort();
            finish(499);
        }
    }

    public boolean isDone() {
        return done;
    }

    /**
     * No client waits for this exchange's answer (a background refresh started on another request's connection): what
     * it writes reaches its taps only, and nothing it does closes that connection.
     */
    public void detach() {
        detached = true;
        answer.detach();
    }

    /** Runs {@code task} on the exchange's loop (after an async step): a client error is answered, a bug a 500. */
    public void resume(Runnable task) {
        ctx.executor().execute(() -> run(task));
    }

    /** As {@link #resume}, but at once when called on the loop (an answer that arrived there: no hop to queue). */
    public void resumeHere(Runnable task) {
        if (ctx.executor().inEventLoop()) {
            run(task);
            return;
        }
        resume(task);
    }

    private void run(Runnable task) {
        try {
            task.run();
        } catch (ApiException e) {
            fail(e.kind(), e.getMessage(), e.param());
        } catch (RuntimeException e) {
            log.warn("request {}: unexpected failure", requestId, e);
            failUnexpectedly();
        }
    }

    /** Keeps {@code answer} ready to stand in for an error a backend failure or overload causes (see {@link StandIn}). */
    public void standIn(StandIn answer) {
        this.standIn = answer;
    }

    /**
     * True when the stand-in answered instead of an error with {@code cause} (a backend failure or overload, as
     * {@link ErrorKind#outage()} names it); false when there is none, it cannot, or {@code cause} is null. The
     * stand-in answers at most once.
     */
    public boolean answeredByStandIn(String cause) {
        if (done || cause == null || standIn == null) {
            return false;
        }
        StandIn ready = standIn;
        standIn = null;
        return ready.answer(this, cause);
    }

    /**
     * Answers with an OpenAI error; the answer's taps are told it will not complete. An error a backend failure or
     * overload causes is answered by the exchange's {@link StandIn} instead, when it has one.
     */
    public void fail(ErrorKind kind, String message, String param) {
        if (done || answeredByStandIn(kind.outage())) {
            return;
        }
        answer.abort();
        finish(kind.status());
        answer.whole(ClientResponses.error(kind, message, param, requestId, keepAlive), Answer.Source.GATEWAY);
    }

    /** Answers with an error and {@code Retry-After} (or the {@link StandIn}, as {@link #fail} says). */
    public void retryLater(ErrorKind kind, String message, long retryAfterSeconds) {
        if (done || answeredByStandIn(kind.outage())) {
            return;
        }
        answer.abort();
        finish(kind.status());
        answer.whole(ClientResponses.retryLater(kind, message, requestId, keepAlive, retryAfterSeconds),
                Answer.Source.GATEWAY);
    }

    /** A bug: a 500 when nothing was written yet; when a stage holds the exchange, cut the connection instead. */
    void failUnexpectedly() {
        if (done) {
            return;
        }
        if (cancelHook != null) {
            cancel();
            if (!detached) {
                ctx.close();
            }
            return;
        }
        answer.abort();
        finish(ErrorKind.INTERNAL.status());
        answer.whole(ClientResponses.error(ErrorKind.INTERNAL, "The gateway failed to handle the request", null,
                requestId, false), Answer.Source.GATEWAY);
    }

    /**
     * Records the end of the exchange, once: gives back its replica and admission slot, releases the request and
     * hands its record to the observers. The answer calls it as its last piece leaves the taps, so whoever has the
     * whole answer also sees it in the metrics; the connection's next exchange starts once nothing of this answer is
     * held back.
     */
    public void finish(int status) {
        if (done) {
            return;
        }
        done = true;
        cancelHook = null;
        holdings.releaseAll();
        request.release();
        long now = ticker.nanos();
        record.stages().finished(now);
        try {
            observer.finished(this, status, now - startNanos); // the metrics, the trace, the access log line
        } catch (RuntimeException e) {
            log.warn("request {}: an observer failed", requestId, e);
        }
        answer.whenSent(onDone);
    }
}
