package io.cachegate.gateway.cache.audit;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.semantic.BudgetedDecision;
import io.cachegate.cache.semantic.Embedder;
import io.cachegate.cache.semantic.HitEvidence;
import io.cachegate.cache.semantic.Neighbour;
import io.cachegate.cache.semantic.VectorIndex;
import io.cachegate.config.AuditSettings;
import io.cachegate.gateway.dispatch.BackendDispatch;
import io.cachegate.gateway.dispatch.Backends;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.metrics.AuditMetrics;
import io.cachegate.gateway.relay.ForwardedHeaders;
import io.cachegate.gateway.upstream.BufferedAnswer;
import io.cachegate.gateway.upstream.UpstreamCaller;
import io.cachegate.routing.ReplicaLease;
import io.cachegate.routing.RoutingRequest;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpRequest;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;

/**
 * Learns whether semantic hits are right, off the client's path:
 *
 * <ul>
 *   <li><b>audits</b>: a share ({@code audit.rate}) of served hits is asked again upstream once the client has its
 *       answer, at most {@code audit.per_second}, never in overload, and only on a replica with room; the fresh
 *       answer is compared with the served one. A wrong verdict demotes the entry (it answers exact repeats only),
 *       purges its index entry, or is only recorded ({@code audit.on_wrong});</li>
 *   <li><b>explorations</b>: under an error budget, a request whose candidates were not served went upstream
 *       anyway; its fresh answer, once stored, is compared with each candidate's at no upstream cost.</li>
 * </ul>
 *
 * Every verdict goes to {@link HitEvidence} (the error budget's estimate) and {@link AuditMetrics}. Both are
 * bounded: audits by the per-second budget, explorations by {@link #MAX_EXPLORATIONS} in flight.
 */
public final class HitAudits {

    /** A fresh answer larger than this is not compared (it would be held in memory whole). */
    static final int MAX_ANSWER_BYTES = 1 << 20;
    /** Explorations comparing answers at once; more are skipped (each reads entries and may embed answers). */
    static final int MAX_EXPLORATIONS = 16;

    private final HitEvidence evidence;
    private final VectorIndex index;
    private final CacheStore store;
    private final Backends backends;
    private final UpstreamCaller client;
    private final boolean replaceAuthorization;
    private final AuditSettings settings;
    private final AuditMetrics metrics;
    private final AnswerAgreement agreement;
    private final Bucket perSecond;
    private final DoubleSupplier random;
    private final AtomicInteger explorations = new AtomicInteger();

    /**
     * @param evidence where verdicts go, and demotions
     * @param embedder compares answers whose texts differ
     * @param index a purged entry leaves it
     * @param replaceAuthorization the client's key authenticated it to the gateway: it is not sent upstream
     * @param random draws in [0, 1) for the audit rate (tests make it certain)
     */
    public HitAudits(AuditSettings settings, HitEvidence evidence, Embedder embedder, VectorIndex index,
                     CacheStore store, Backends backends, UpstreamCaller client, boolean replaceAuthorization,
                     AuditMetrics metrics, DoubleSupplier random) {
        this.evidence = evidence;
        this.index = index;
        this.store = store;
        this.backends = backends;
        this.client = client;
        this.replaceAuthorization = replaceAuthorization;
        this.settings = settings;
        this.metrics = metrics;
        this.agreement = new AnswerAgreement(embedder, settings.answerSimilarity());
        this.perSecond = bucket(settings.perSecond());
        this.random = random;
    }

    public HitAudits(AuditSettings settings, HitEvidence evidence, Embedder embedder, VectorIndex index,
                     CacheStore store, Backends backends, UpstreamCaller client, boolean replaceAuthorization,
                     AuditMetrics metrics) {
        this(settings, evidence, embedder, index, store, backends, client, replaceAuthorization, metrics,
                () -> ThreadLocalRandom.current().nextDouble());
    }

    /** At most {@code rate} audits a second, with a burst of one second's worth (at least one). */
    private static Bucket bucket(double rate) {
        long capacity = Math.max(1, (long) Math.floor(rate));
        Duration period = Duration.ofNanos((long) Math.ceil(1e9 * capacity / rate));
        return Bucket.builder().addLimit(Bandwidth.builder().capacity(capacity).refillGreedy(capacity, period).build())
                .build();
    }

    /**
     * Whether the semantic hit {@code x} is about to be answered with is audited: rate, overload, per-second budget
     * and a replica with room decide. If so, its request is copied now (the exchange frees its own once answered)
     * and the returned audit must be {@link Due#start started} once the client has its answer, or {@link
     * Due#cancel cancelled}. Null when it is not audited. On the client's event loop.
     */
    public Due due(Exchange x) {
        if (settings.rate() == 0 || random.getAsDouble() >= settings.rate()) {
            return null;
        }
        if (backends.skipOptionalWork()) {
            return skipped("overload");
        }
        if (!perSecond.tryConsume(1)) {
            return skipped("budget");
        }
        BackendDispatch backend = backends.get(x.route().backend().name());
        Optional<ReplicaLease> lease = backend.replicas().tryAcquire(RoutingRequest.of(0));
        if (lease.isEmpty()) {
            return skipped("no_replica");
        }
        FullHttpRequest request = ForwardedHeaders.copyForReplica(x.request(), lease.get().replica(),
                x.requestId() + "-audit", replaceAuthorization, backend.backend().apiKey());
        return new Due(x, backend, lease.get(), request);
    }

    /**
     * An audit that did not judge its hit, counted by why: {@code overload}, {@code budget}, {@code no_replica}
     * before it started; {@code failed} or {@code unjudged} (the answers could not be compared) after.
     */
    private Due skipped(String why) {
        metrics.auditSkipped(why);
        return null;
    }

    /** An audit decided on, its request copied and a replica reserved. */
    public final class Due {
        private final EventLoop loop;
        private final BackendDispatch backend;
        private final ReplicaLease lease;
        private final FullHttpRequest request;
        private final String pool;
        private final String tenant;
        private final String scope;

        private Due(Exchange x, BackendDispatch backend, ReplicaLease lease, FullHttpRequest request) {
            this.loop = x.ctx().channel().eventLoop();
            this.backend = backend;
            this.lease = lease;
            this.request = request;
            this.pool = x.routeLabel();
            this.tenant = x.tenant();
            this.scope = x.evidenceScope();
        }

        /**
         * Asks again upstream, after the current task (which wrote the client's answer), and compares.
         *
         * @param served the entry the client was answered with, of {@code neighbour}
         * @param prior the classifier's probability for the pair, filed with the verdict
         */
        public void start(Neighbour neighbour, double prior, CacheEntry served) {
            try {
                loop.execute(() -> client.call(loop, lease.replica(), backend.upstream(), request,
                        new BufferedAnswer(MAX_ANSWER_BYTES, fresh -> {
                            lease.release();
                            if (!fresh.ok()) {
                                skipped("failed");
                                return;
                            }
                            agreement.agree(agreement.answer(served.body()), agreement.answer(fresh.body()))
                                    .thenAccept(verdict -> audited(verdict, pool, tenant, scope, neighbour, prior));
                        })));
            } catch (RejectedExecutionException e) {
                cancel(); // the gateway is shutting down
                skipped("failed");
            }
        }

        /** The hit was not served after all. */
        public void cancel() {
            request.release();
            lease.release();
        }
    }

    private void audited(Optional<Boolean> verdict, String pool, String tenant, String scope, Neighbour neighbour,
                         double prior) {
        if (verdict.isEmpty()) {
            skipped("unjudged");
            return;
        }
        boolean right = verdict.get();
        evidence.record(scope, neighbour.entryKey(), neighbour.similarity(), prior, right);
        metrics.verdict("audit", pool, tenant, right);
        if (right) {
            return;
        }
        switch (settings.onWrong()) {
            case DEMOTE -> evidence.demote(neighbour.entryKey());
            case PURGE -> {
                evidence.demote(neighbour.entryKey());
                index.delete(neighbour.entryKey()).exceptionally(error -> null);
            }
            case RECORD -> {
                return; // filed as evidence only
            }
        }
        metrics.wrongEntry(settings.onWrong().name().toLowerCase(Locale.ROOT));
    }

    /**
     * After a request's fresh answer was stored under {@code freshKey}: compares it with each candidate the error
     * budget did not serve, and files each verdict for the candidate and for the new entry (the same pair).
     */
    public void explore(Exploration exploration, String freshKey, CacheEntry fresh) {
        if (exploration.candidates().isEmpty()) {
            return;
        }
        if (explorations.incrementAndGet() > MAX_EXPLORATIONS || backends.skipOptionalWork()) {
            explorations.decrementAndGet();
            return;
        }
        AnswerAgreement.Answer freshAnswer = agreement.answer(fresh.body());
        AtomicInteger left = new AtomicInteger(exploration.candidates().size());
        for (BudgetedDecision.Candidate candidate : exploration.candidates()) {
            compare(exploration, candidate, freshKey, freshAnswer).whenComplete((ok, error) -> {
                if (left.decrementAndGet() == 0) {
                    explorations.decrementAndGet();
                }
            });
        }
    }

    private CompletableFuture<Void> compare(Exploration exploration, BudgetedDecision.Candidate candidate,
                                            String freshKey, AnswerAgreement.Answer fresh) {
        Neighbour n = candidate.neighbour();
        Optional<CacheKey> key = CacheKey.fromRedisKey(n.entryKey());
        if (key.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return store.get(key.get())
                .thenCompose(entry -> entry.isEmpty()
                        ? CompletableFuture.completedFuture(Optional.<Boolean>empty())
                        : agreement.agree(agreement.answer(entry.get().body()), fresh))
                .thenAccept(verdict -> verdict.ifPresent(right -> {
                    evidence.recordPair(exploration.scope(), n.entryKey(), freshKey, n.similarity(),
                            candidate.prior(), right);
                    metrics.verdict("explore", exploration.pool(), exploration.tenant(), right);
                }));
    }
}
