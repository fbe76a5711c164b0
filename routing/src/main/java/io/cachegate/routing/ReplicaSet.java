package io.cachegate.routing;

import io.cachegate.config.Balance;
import io.cachegate.config.PrefixAffinitySettings;
import io.cachegate.config.Ticker;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * The replicas of one backend with their load, capacity and circuit breakers: chooses a replica for
 * each request by the configured {@link Balance} among healthy replicas with room, and reserves the
 * room until the returned lease is released. Thread-safe; never blocks beyond one short lock; starts
 * no threads (probes and metric scrapes are the gateway's, which reports them here).
 *
 * <p>One lock guards counters and breakers: decisions look at every replica anyway, replicas per
 * backend are few, and a single lock makes "never above capacity" obvious. Prompt hashing and
 * prefix-index lookups happen outside it.
 */
public final class ReplicaSet {

    private final String name;
    private final ReplicaSetSettings settings;
    private final List<Replica> replicas;
    private final List<URI> uris;
    private final Map<URI, Replica> byUri;
    private final ReplicaSelector selector;
    private final KvAwareSelector kvSelector;
    private final Ticker ticker;
    private final ReplicaStateListener listener;
    private final long staleNanos;
    private final Object lock = new Object();
    private long leaseIds;
    /** The sum of the replicas' request limits, rewritten under the lock when an adaptive limit moves. */
    private volatile int requestCapacity;

    private ReplicaSet(Builder b) {
        this.name = b.name;
        this.settings = b.settings;
        this.ticker = b.ticker;
        this.listener = b.listener;
        this.staleNanos = settings.externalLoad().staleAfter().toNanos();
        List<Replica> list = new ArrayList<>();
        Map<URI, Replica> map = new HashMap<>();
        for (URI uri : b.uris) {
            Replica r = new Replica(uri, list.size(), settings.breaker(), settings.affinity().maxBlocksPerReplica(),
                    settings.adaptiveConcurrency() ? new AdaptiveCapacity(settings.maxConcurrency()) : null);
            if (map.putIfAbsent(uri, r) != null) {
                throw new IllegalArgumentException("backend " + name + " lists replica " + uri + " twice");
            }
            list.add(r);
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException("backend " + name + " has no replicas");
        }
        this.replicas = List.copyOf(list);
        this.uris = List.copyOf(b.uris);
        this.byUri = Map.copyOf(map);
        this.selector = ReplicaSelector.of(settings.balance(), settings.affinity(), b.random, list.size());
        this.kvSelector = new KvAwareSelector(settings.affinity().loadFactor(), settings.affinity().loadSlackTokens(),
                new LeastLoadedSelector(b.random));
        this.requestCapacity = sumOfLimits();
    }

    /** A builder with default settings, the system ticker, an unseeded random and no listener. */
    public static Builder builder(String name, List<URI> replicas) {
        return new Builder(name, replicas);
    }

    public String name() {
        return name;
    }

    public List<URI> replicas() {
        return uris;
    }

    public ReplicaSetSettings settings() {
        return settings;
    }

    /**
     * The requests all replicas may have in flight now: replicas x {@code maxConcurrency}, or the sum of the
     * adaptive limits (what admission's in-flight shares divide). Read without the lock.
     */
    public int requestCapacity() {
        return requestCapacity;
    }

    /** Hashes {@code prompt} with this set's block rule, for {@link RoutingRequest#withBlocks}. */
    public PrefixHashes prefixHashes(CharSequence prompt) {
        PrefixAffinitySettings a = settings.affinity();
        return PrefixHashes.of(prompt, a.blockChars(), a.maxBlocksPerPrompt());
    }

    /**
     * How many leading characters of the text {@code blocks} were hashed from the replica holding most of it is
     * expected to have in its prefix cache: the longest run of its blocks recently routed to one replica, the one
     * prefix affinity picks unless it is overloaded. 0 without blocks. Reads each replica's index under its own lock.
     */
    public int expectedCachedChars(PrefixHashes blocks) {
        if (blocks.isEmpty()) {
            return 0;
        }
        int best = 0;
        for (Replica r : replicas) {
            best = Math.max(best, r.index.longestMatch(blocks));
        }
        return best * blocks.blockChars();
    }

    /**
     * Chooses a replica for {@code request} and reserves its cost there. Empty when no replica outside
     * {@code request.exclude()} is both admitted by its breaker and has room; {@link #allDown()} then
     * tells "down" (answer 503) from "full" (queue or shed).
     */
    public Optional<ReplicaLease> tryAcquire(RoutingRequest request) {
        boolean affinity = settings.balance() == Balance.PREFIX_AFFINITY || settings.balance() == Balance.KV_AWARE;
        PrefixHashes blocks = affinity ? blocksOf(request) : PrefixHashes.empty();
        KvFigures kv = settings.balance() == Balance.KV_AWARE ? request.kv().orElse(null) : null;
        int[] uncached = kv == null ? null : kv.uncachedTokens();
        if (uncached != null && uncached.length != replicas.size()) {
            throw new IllegalArgumentException("uncached tokens for " + uncached.length + " replicas given to backend "
                    + name + " which has " + replicas.size());
        }
        int[] matches = uncached != null || blocks.isEmpty() ? null : matches(blocks);
        // kv_aware places a prompt by its first block: prompts that share it share a system prompt or a conversation.
        OptionalLong placement = blocks.isEmpty() ? OptionalLong.empty() : OptionalLong.of(blocks.get(0));
        List<StateChange> changes = new ArrayList<>(0);
        ReplicaLease lease = null;
        synchronized (lock) {
            long now = ticker.nanos();
            List<Replica> candidates = new ArrayList<>(replicas.size());
            for (Replica r : replicas) {
                if (request.exclude().contains(r.uri)) {
                    continue;
                }
                CircuitState before = r.breaker.current();
                boolean admitted = r.breaker.admits(now);
                noteChange(changes, r, before, r.breaker.state(now));
                if (admitted && r.hasRoom(request.tokenCost(), settings.maxConcurrency(), settings.maxInflightTokens())) {
                    candidates.add(r);
                }
            }
            if (!candidates.isEmpty()) {
                long[] loads = new long[candidates.size()];
                for (int i = 0; i < loads.length; i++) {
                    loads[i] = candidates.get(i).load(now, staleNanos);
                }
                Replica chosen = candidates.get(uncached != null
                        ? kvSelector.select(candidates, loads, uncached, placement)
                        : selector.select(candidates, loads, matches));
                long id = ++leaseIds;
                boolean trial = chosen.breaker.startTrial(id);
                chosen.inflightRequests++;
                chosen.inflightTokens = Replica.saturatedAdd(chosen.inflightTokens, request.tokenCost());
                long prefill = uncached == null ? 0 : uncached[chosen.position];
                chosen.prefillBacklog += prefill;
                lease = new ReplicaLease(this, chosen, request.tokenCost(), prefill, id, trial);
            }
        }
        if (lease != null && !blocks.isEmpty()) {
            lease.replicaState().index.record(blocks);
        }
        if (lease != null && kv != null) {
            kv.chosen().accept(lease.replicaState().position);
        }
        try {
            fire(changes);
        } catch (RuntimeException e) {
            if (lease != null) {
                lease.release();
            }
            throw e;
        }
        return Optional.ofNullable(lease);
    }

    /** A request to {@code replica} succeeded: resets its failure count, closes a half-open circuit. */
    public void recordSuccess(URI replica) {
        update(replica, (r, now) -> r.breaker.success(now));
    }

    /**
     * As {@link #recordSuccess(URI)}, with the answer's time to first byte ({@code ttfbNanos}, time to first
     * token when streamed): with an adaptive capacity, a sample for the replica's limit, taken while the
     * request is still in flight there.
     */
    public void recordSuccess(URI replica, long ttfbNanos) {
        update(replica, (r, now) -> {
            r.breaker.success(now);
            if (r.adaptive != null) {
                r.adaptive.onSample(now - ttfbNanos, ttfbNanos, Math.max(1, r.inflightRequests),
                        r.takeWaitingReport());
                requestCapacity = sumOfLimits();
            }
        });
    }

    /**
     * A request to {@code replica} failed in a way that says the replica is unwell (see {@link FailureKind}).
     * Request failures alone never eject the last healthy replica: a CLOSED replica at the threshold opens
     * only while another replica is CLOSED, else it stays in and the health probe decides (a failed probe
     * ejects it). A request can fail for reasons of its own; one tenant's bad requests must not take the
     * only replica away from every tenant. A failed trial of a HALF_OPEN replica (already ejected) reopens it.
     * Without a tenant (a policy with none), see {@link #recordFailure(URI, String)}.
     */
    public void recordFailure(URI replica) {
        recordFailure(replica, "");
    }

    /**
     * As {@link #recordFailure(URI)}, for a request of {@code tenant}: with {@link BreakerSettings#tenantsToEject()}
     * above 1, failures from one tenant alone never eject a replica (its requests may be what fails), however many.
     */
    public void recordFailure(URI replica, String tenant) {
        update(replica, (r, now) -> r.breaker.failure(now, anotherClosed(r), tenant));
    }

    /**
     * An active health check's result: a failure ejects at once (or restarts the cool-down); a pass closes a
     * half-open circuit, and cuts an open circuit's cool-down short only while no other replica is in. With another
     * replica serving, the cool-down keeps a flapping replica out at the cost of some capacity; with none, it would
     * cost a 503 for every request until it ends, after the probe has shown the replica answering.
     */
    public void recordProbe(URI replica, boolean ok) {
        update(replica, (r, now) -> r.breaker.probe(ok, now, !anotherClosed(r)));
    }

    /**
     * The replica's own load report (e.g. parsed by {@link VllmMetrics}): {@code waiting} queued
     * requests and {@code kvUsage} in [0, 1], turned into tokens per {@link ExternalLoadSettings}
     * and added to its in-flight tokens for balancing until it goes stale. With an adaptive capacity, a report
     * of waiting requests also lowers the replica's limit once, at its next latency sample.
     */
    public void recordExternalLoad(URI replica, double waiting, double kvUsage) {
        ExternalLoadSettings e = settings.externalLoad();
        double w = Double.isFinite(waiting) ? Math.max(0, waiting) : 0;
        double kv = Double.isFinite(kvUsage) ? Math.min(1, Math.max(0, kvUsage)) : 0;
        double tokens = w * e.tokensPerWaitingRequest() + kv * e.tokensAtFullKvCache();
        long rounded = tokens >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.round(tokens);
        update(replica, (r, now) -> {
            r.externalTokens = rounded;
            r.waitingReported = w > 0;
            r.externalAt = now;
            r.externalKnown = true;
        });
    }

    /**
     * True when no replica can take a new request for health reasons: each is OPEN, or HALF_OPEN with
     * its trial already in flight. Capacity does not count: a full set is busy, not down.
     */
    public boolean allDown() {
        List<StateChange> changes = new ArrayList<>(0);
        boolean down = true;
        synchronized (lock) {
            long now = ticker.nanos();
            for (Replica r : replicas) {
                CircuitState before = r.breaker.current();
                down &= !r.breaker.admits(now);
                noteChange(changes, r, before, r.breaker.state(now));
            }
        }
        fire(changes);
        return down;
    }

    /** The circuit state of {@code replica} now; CLOSED for a URL that is not one of this set's. */
    public CircuitState state(URI replica) {
        return update(replica, (r, now) -> { });
    }

    /** Every replica's state and load, in configured order. */
    public List<ReplicaStatus> status() {
        List<ReplicaStatus> out = new ArrayList<>(replicas.size());
        List<StateChange> changes = new ArrayList<>(0);
        synchronized (lock) {
            long now = ticker.nanos();
            for (Replica r : replicas) {
                CircuitState before = r.breaker.current();
                CircuitState state = r.breaker.state(now);
                noteChange(changes, r, before, state);
                out.add(new ReplicaStatus(r.uri, state, r.inflightRequests, r.inflightTokens,
                        r.load(now, staleNanos) - r.inflightTokens, r.breaker.consecutiveFailures(), r.index.size(),
                        r.requestLimit(settings.maxConcurrency()), r.prefillBacklog));
            }
        }
        fire(changes);
        return List.copyOf(out);
    }

    void prefilled(ReplicaLease lease) {
        synchronized (lock) {
            lease.replicaState().prefillBacklog -= lease.prefillTokens();
        }
    }

    void release(ReplicaLease lease) {
        Replica r = lease.replicaState();
        boolean prefillPending = lease.takePrefill();
        synchronized (lock) {
            r.inflightRequests--;
            r.inflightTokens -= lease.tokens();
            if (prefillPending) {
                r.prefillBacklog -= lease.prefillTokens();
            }
            if (lease.trial()) {
                r.breaker.abandonTrial(lease.id());
            }
        }
    }

    /**
     * Whether a replica other than {@code r} is CLOSED. Reads the noticed state without moving any other breaker
     * (that would change a state without telling the listener): an OPEN one past its cool-down is HALF_OPEN,
     * not CLOSED, either way. Call under the lock.
     */
    private boolean anotherClosed(Replica r) {
        for (Replica other : replicas) {
            if (other != r && other.breaker.current() == CircuitState.CLOSED) {
                return true;
            }
        }
        return false;
    }

    private int sumOfLimits() {
        long sum = 0;
        for (Replica r : replicas) {
            sum += r.requestLimit(settings.maxConcurrency());
        }
        return (int) Math.min(Integer.MAX_VALUE, sum);
    }

    private PrefixHashes blocksOf(RoutingRequest request) {
        PrefixHashes given = request.blocks().orElse(PrefixHashes.empty());
        if (!given.isEmpty() && given.blockChars() != settings.affinity().blockChars()) {
            throw new IllegalArgumentException("prefix blocks of " + given.blockChars()
                    + " chars given to backend " + name + " which hashes " + settings.affinity().blockChars());
        }
        return given;
    }

    private int[] matches(PrefixHashes blocks) {
        int[] matches = new int[replicas.size()];
        for (Replica r : replicas) {
            matches[r.position] = r.index.longestMatch(blocks);
        }
        return matches;
    }

    private interface Update {
        void apply(Replica replica, long now);
    }

    /** Applies {@code update} under the lock and reports a state change; returns the state after. */
    private CircuitState update(URI uri, Update update) {
        Replica r = byUri.get(uri);
        if (r == null) {
            return CircuitState.CLOSED; // not ours (e.g. a set replaced by a reload): nothing to update
        }
        List<StateChange> changes = new ArrayList<>(0);
        CircuitState after;
        synchronized (lock) {
            long now = ticker.nanos();
            CircuitState before = r.breaker.current();
            CircuitState noticed = r.breaker.state(now);
            update.apply(r, now);
            after = r.breaker.state(now);
            noteChange(changes, r, before, noticed);
            noteChange(changes, r, noticed, after);
        }
        fire(changes);
        return after;
    }

    private static void noteChange(List<StateChange> changes, Replica r, CircuitState before, CircuitState after) {
        if (before != after) {
            changes.add(new StateChange(r.uri, before, after));
        }
    }

    private void fire(List<StateChange> changes) {
        for (StateChange c : changes) {
            listener.stateChanged(name, c.replica(), c.from(), c.to());
        }
    }

    private record StateChange(URI replica, CircuitState from, CircuitState to) {
    }

    /** Builds a {@link ReplicaSet}; each setter checks its argument. */
    public static final class Builder {

        private final String name;
        private final List<URI> uris;
        private ReplicaSetSettings settings = ReplicaSetSettings.defaults();
        private Ticker ticker = Ticker.system();
        private RandomGenerator random = new SplittableRandom();
        private ReplicaStateListener listener = ReplicaStateListener.NONE;

        private Builder(String name, List<URI> uris) {
            this.name = Objects.requireNonNull(name, "name");
            this.uris = List.copyOf(uris);
        }

        public Builder settings(ReplicaSetSettings s) {
            this.settings = Objects.requireNonNull(s, "settings");
            return this;
        }

        /** The clock for breaker cool-downs and load staleness ({@link Ticker#system()} by default); tests move a fake. */
        public Builder ticker(Ticker t) {
            this.ticker = Objects.requireNonNull(t, "ticker");
            return this;
        }

        /** The random source for tie-breaking; used only under the set's lock, so need not be thread-safe. */
        public Builder random(RandomGenerator r) {
            this.random = Objects.requireNonNull(r, "random");
            return this;
        }

        public Builder listener(ReplicaStateListener l) {
            this.listener = Objects.requireNonNull(l, "listener");
            return this;
        }

        public ReplicaSet build() {
            return new ReplicaSet(this);
        }
    }
}
