package io.cachegate.cache.semantic;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the gateway has learned of whether its semantic hits are right: verdicts of (query, entry) pairs, from
 * audits of served hits and from explorations (a candidate that was not served, compared with the fresh answer the
 * query got upstream). Turned into an estimate that a candidate at a given similarity is right, in two levels:
 *
 * <ol>
 *   <li>the pool's (a route's) calibration of the classifier's probability: verdicts counted in bins of that
 *       probability, the probability itself counting as {@link Strength#pool} verdicts of prior;</li>
 *   <li>the entry's own verdicts, read as evidence about its threshold: a right verdict at a similarity at or
 *       below the candidate's says the entry answers this close a query; a wrong one at or above it says it does
 *       not. The pool's estimate counts as {@link Strength#entry} verdicts of prior, so an entry with little
 *       evidence is judged as its route's entries are (vCache, arXiv 2502.03771, learns a threshold per entry
 *       the same way, with a sigmoid where this counts).</li>
 * </ol>
 *
 * The pool's counts by bin ({@link PoolCalibration}) also give the always-valid upper bound on each class's error
 * rate ({@link #upperError}, {@link #upperErrorNested}) that the error budget serves under by default, each open
 * class followed by a {@link ClassWatch} from the verdicts filed after it opened; a pool is a route and a tenant
 * ({@link #scope}).
 *
 * <p>Gateways over one index file what each of them finds ({@link #onFiled}, {@link #apply}): each piece of evidence
 * is a {@link FiledEvidence}.
 *
 * <p>Bounded: verdicts of at most {@code maxEntries} entries (the least recently judged are dropped first), the last
 * {@link #PER_ENTRY} of each. Thread-safe; each call holds one entry's or one pool's lock for microseconds.
 */
public final class HitEvidence {

    /** Between a scope's route and tenant: a character neither holds. */
    private static final char SCOPE_SEPARATOR = '\u001f';
    /** Between a scope's route and the route's identity ({@link #scope(String, String, String)}). */
    private static final char IDENTITY_SEPARATOR = '\u001e';

    /** Verdicts kept per entry: the newest. */
    static final int PER_ENTRY = 32;

    /** How many verdicts a prior is worth, at the pool and at the entry level. */
    public record Strength(double pool, double entry) {

        /** Chosen on BANKING77 and checked on CLINC150 (docs/caches.md, "The error budget"). */
        public static final Strength DEFAULT = new Strength(20, 2);

        public Strength {
            if (!(pool > 0) || !(entry > 0)) {
                throw new IllegalArgumentException("prior strengths must be > 0: " + pool + ", " + entry);
            }
        }
    }

    private final int maxEntries;
    private final Strength strength;
    private final Map<String, EntryVerdicts> entries;
    private final ConcurrentMap<String, PoolCalibration> pools = new ConcurrentHashMap<>();
    private final AnswerGroups answers;
    /** Told of each piece of evidence filed here (not of those {@link #apply}'d from elsewhere). */
    private volatile Consumer<FiledEvidence> filed = e -> { };
    /** Where the fleet's shared evidence was read up to when this evidence held it all; null unless shared. */
    private volatile Supplier<FleetPosition> fleetPosition = () -> null;

    /**
     * How far a gateway had read its fleet's evidence ({@code lastId}, a position in the shared log), under which
     * {@code origin} it filed its own, and per other gateway's origin the highest sequence number it took
     * ({@code taken}): what a restart reading saved evidence resumes from, so no verdict counts twice, not even a copy
     * planted in the log after the restart.
     */
    public record FleetPosition(String origin, String lastId, Map<String, Long> taken) {

        public FleetPosition {
            Objects.requireNonNull(origin, "origin");
            Objects.requireNonNull(lastId, "lastId");
            taken = Map.copyOf(taken);
        }
    }

    public HitEvidence(int maxEntries) {
        this(maxEntries, Strength.DEFAULT);
    }

    public HitEvidence(int maxEntries, Strength strength) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, was " + maxEntries);
        }
        this.maxEntries = maxEntries;
        this.strength = strength;
        this.answers = new AnswerGroups(maxEntries);
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, EntryVerdicts> eldest) {
                return size() > HitEvidence.this.maxEntries;
            }
        };
    }

    /**
     * Records one verdict.
     *
     * @param pool where the entry's verdicts are pooled (a route)
     * @param similarity the query's cosine similarity to the entry
     * @param prior the classifier's probability for the pair
     */
    public void record(String pool, String entryKey, float similarity, double prior, boolean right) {
        file(pool, entryKey, similarity, prior, right);
        filed.accept(new FiledEvidence.Verdict(pool, entryKey, null, similarity, prior, right));
    }

    private void file(String pool, String entryKey, float similarity, double prior, boolean right) {
        pools.computeIfAbsent(pool, p -> new PoolCalibration()).add(prior, right);
        entryVerdicts(entryKey).add(similarity, right);
    }

    private EntryVerdicts entryVerdicts(String entryKey) {
        synchronized (entries) {
            return entries.computeIfAbsent(entryKey, k -> new EntryVerdicts());
        }
    }

    /**
     * Records one verdict on a pair of entries, for both: "same answer" is symmetric, so the entry a query was
     * filed as (after its miss) starts with the verdict its candidate got. Counted once in the pool. A right
     * verdict also puts {@code otherKey} in {@code entryKey}'s answer group.
     */
    public void recordPair(String pool, String entryKey, String otherKey, float similarity, double prior,
                           boolean right) {
        filePair(pool, entryKey, otherKey, similarity, prior, right);
        filed.accept(new FiledEvidence.Verdict(pool, entryKey, otherKey, similarity, prior, right));
    }

    private void filePair(String pool, String entryKey, String otherKey, float similarity, double prior,
                          boolean right) {
        file(pool, entryKey, similarity, prior, right);
        entryVerdicts(otherKey).add(similarity, right);
        if (right) {
            answers.join(otherKey, entryKey);
        }
    }

    /**
     * Files evidence another gateway filed (read from the fleet's shared log) as if it were this gateway's own, but
     * without telling {@link #onFiled}'s listener (it came from the log).
     */
    public void apply(FiledEvidence evidence) {
        if (evidence instanceof FiledEvidence.Verdict v && v.otherKey() == null) {
            file(v.pool(), v.entryKey(), v.similarity(), v.prior(), v.right());
        } else if (evidence instanceof FiledEvidence.Verdict v) {
            filePair(v.pool(), v.entryKey(), v.otherKey(), v.similarity(), v.prior(), v.right());
        } else if (evidence instanceof FiledEvidence.Demotion d) {
            entryVerdicts(d.entryKey()).demoted = true;
        } else if (evidence instanceof FiledEvidence.Answer a) {
            answers.assign(a.entryKey(), a.group());
        }
    }

    /** Tells {@code listener} of each piece of evidence filed here from now on, on the filing thread: keep it short. */
    public void onFiled(Consumer<FiledEvidence> listener) {
        this.filed = listener;
    }

    /** Where the fleet's shared evidence had been read up to, as saved with this evidence; null when never shared. */
    public FleetPosition fleetPosition() {
        return fleetPosition.get();
    }

    /** Marks the fleet's evidence as read up to {@code position} (as read from a file). */
    public void fleetPosition(FleetPosition position) {
        this.fleetPosition = () -> position;
    }

    /**
     * Reads the fleet position from {@code live} from now on: the shared log's reader, which advances it before each
     * piece it files, so a save (which reads it after the counts) holds a position past what it counted, never behind
     * (the difference is lost at a restart, never counted twice).
     */
    public void followFleet(Supplier<FleetPosition> live) {
        this.fleetPosition = Objects.requireNonNull(live, "live");
    }

    /** Files the answer of an entry this gateway generated in its group ({@link AnswerGroups#file}). */
    public void fileAnswer(String entryKey, String answerText) {
        long group = answers.file(entryKey, answerText);
        if (group != AnswerGroups.UNKNOWN) {
            filed.accept(new FiledEvidence.Answer(entryKey, group));
        }
    }

    /** Which entries give the same answer, as filed and as verdicts found; bounded like the verdicts. */
    public AnswerGroups answers() {
        return answers;
    }

    /** The estimated probability that {@code entryKey} rightly answers a query at {@code similarity}. */
    public double estimate(String pool, String entryKey, float similarity, double prior) {
        PoolCalibration calibration = pools.get(pool);
        return entryEstimate(entryKey, similarity,
                calibration == null ? prior : calibration.estimate(prior, strength.pool()));
    }

    /**
     * The always-valid upper bound on the error rate of the candidates in {@code prior}'s bin of {@code pool}, from
     * the verdicts filed there; 1 without any.
     */
    public double upperError(String pool, double prior, ErrorBound bound) {
        PoolCalibration calibration = pools.get(pool);
        if (calibration == null) {
            return 1;
        }
        long[] counts = calibration.counts(ProbabilityBins.of(prior));
        return bound.upper(counts[1], counts[0] + counts[1]);
    }

    /**
     * The lowest upper bound among the nested classes that hold {@code prior}'s bin: "every candidate of {@code pool}
     * whose prior is in bin j or above", for each j up to that bin, each at its share of delta ({@link
     * ClassSpending}). Serving a candidate when it is within the budget serves the class "bin j* or above" of the
     * lowest open j*, whose error the bound covers. Computed once per new verdict.
     */
    public double upperErrorNested(String pool, double prior, ClassSpending spending) {
        return upperErrorNested(pool, prior, spending, ClassWatch.OFF);
    }

    /**
     * The same, with the classes followed after they open by {@code watch} ({@link ClassWatch}): a class it closed
     * stays closed until its verdicts since the closing reopen it. The watch starts when first asked for, on the
     * verdicts filed by then.
     */
    public double upperErrorNested(String pool, double prior, ClassSpending spending, ClassWatch watch) {
        PoolCalibration calibration = pools.get(pool);
        if (calibration == null) {
            return 1;
        }
        double[] nested = watch.off() ? calibration.nestedUpper(spending) : calibration.watchedUpper(spending, watch);
        return nested[ProbabilityBins.of(prior)];
    }

    /**
     * The audit rate {@code watch} asks of a hit served at {@code prior} while the classes holding it are fresh
     * ({@link ClassWatch#auditRate}), else 0.
     */
    public double freshAuditRate(String pool, double prior, ClassSpending spending, ClassWatch watch) {
        PoolCalibration calibration = pools.get(pool);
        return calibration == null || watch.auditRate() == 0 && watch.floorAudit() == 0 ? 0
                : calibration.auditRate(spending, watch, ProbabilityBins.of(prior));
    }

    /** How often {@code watch}'s drift test closed one of {@code pool}'s classes under {@code spending}. */
    public long watchClosings(String pool, ClassSpending spending, ClassWatch watch) {
        PoolCalibration calibration = pools.get(pool);
        return calibration == null ? 0 : calibration.closings(spending, watch);
    }

    /**
     * What {@code watch} did to each route's classes under {@code spending} ({@link ClassWatch.Figures}), its
     * tenants' scopes summed. Reads only: a scope whose classes were never judged under these settings counts nothing
     * (no watch is started for the asking). Holds each pool's lock in turn, for microseconds.
     */
    public Map<String, ClassWatch.Figures> watchFiguresByRoute(ClassSpending spending, ClassWatch watch) {
        PoolCalibration.WatchKey key = PoolCalibration.WatchKey.of(spending, watch);
        Map<String, ClassWatch.Figures> byRoute = new TreeMap<>();
        pools.forEach((scope, calibration) -> {
            ClassWatch.Figures figures = calibration.figures(key);
            if (figures != null) {
                byRoute.merge(routeOf(scope), figures, ClassWatch.Figures::plus);
            }
        });
        return byRoute;
    }

    /** {right, wrong} verdicts filed in {@code prior}'s bin of {@code pool}. */
    public long[] verdicts(String pool, double prior) {
        PoolCalibration calibration = pools.get(pool);
        return calibration == null ? new long[2] : calibration.counts(ProbabilityBins.of(prior));
    }

    /** The scope of a budget's evidence: a route's verdicts are pooled per tenant. */
    public static String scope(String route, String tenant) {
        return tenant == null || tenant.isEmpty() ? route : route + SCOPE_SEPARATOR + tenant;
    }

    /**
     * The scope of a route known by {@code identity} as well as by its label: a route's evidence is kept under both,
     * so a route that moves in the table (another label) or a changed one (another identity) starts afresh rather
     * than serve on another route's verdicts.
     */
    public static String scope(String route, String identity, String tenant) {
        return scope(route + IDENTITY_SEPARATOR + identity, tenant);
    }

    /** The route of a {@link #scope}, its label alone. */
    static String routeOf(String scope) {
        int at = scope.indexOf(SCOPE_SEPARATOR);
        String route = at < 0 ? scope : scope.substring(0, at);
        int identity = route.indexOf(IDENTITY_SEPARATOR);
        return identity < 0 ? route : route.substring(0, identity);
    }

    /**
     * {@code pooled}, the probability that an entry of the pool is right, read with {@code entryKey}'s own verdicts
     * about its threshold.
     */
    public double entryEstimate(String entryKey, float similarity, double pooled) {
        EntryVerdicts verdicts;
        synchronized (entries) {
            verdicts = entries.get(entryKey);
        }
        if (verdicts == null) {
            return pooled;
        }
        int[] counts = verdicts.around(similarity);
        return (strength.entry() * pooled + counts[0]) / (strength.entry() + counts[0] + counts[1]);
    }

    /** The entry answers exact repeats only from now on: no candidate of a semantic lookup. */
    public void demote(String entryKey) {
        EntryVerdicts verdicts = entryVerdicts(entryKey);
        if (!verdicts.demoted) {
            verdicts.demoted = true;
            filed.accept(new FiledEvidence.Demotion(entryKey));
        }
    }

    public boolean demoted(String entryKey) {
        synchronized (entries) {
            EntryVerdicts verdicts = entries.get(entryKey);
            return verdicts != null && verdicts.demoted;
        }
    }

    int maxEntries() {
        return maxEntries;
    }

    /** Entries with verdicts or a demotion, at most {@code maxEntries}. */
    public int entries() {
        synchronized (entries) {
            return entries.size();
        }
    }

    /** No verdict, demotion or answer group yet: what {@link EvidenceFile#read} reads into. */
    boolean isEmpty() {
        return pools.isEmpty() && entries() == 0 && answers.size() == 0;
    }

    /** Each pool's counts and closed classes, for {@link EvidenceFile}. */
    Map<String, SavedPool> savedPools() {
        Map<String, SavedPool> out = new TreeMap<>();
        pools.forEach((name, calibration) -> out.put(name, calibration.saved()));
        return out;
    }

    void restorePool(String name, SavedPool saved) {
        pools.computeIfAbsent(name, p -> new PoolCalibration()).restore(saved);
    }

    /** Each entry's verdicts, oldest first, and whether it is demoted, least recently judged first. */
    Map<String, SavedEntry> savedEntries() {
        List<Map.Entry<String, EntryVerdicts>> copy;
        synchronized (entries) {
            copy = new ArrayList<>(entries.entrySet());
        }
        Map<String, SavedEntry> out = new LinkedHashMap<>();
        for (Map.Entry<String, EntryVerdicts> e : copy) {
            out.put(e.getKey(), e.getValue().saved());
        }
        return out;
    }

    void restoreEntry(String entryKey, SavedEntry saved) {
        EntryVerdicts verdicts = new EntryVerdicts();
        for (int i = 0; i < saved.similarity().length; i++) {
            verdicts.add(saved.similarity()[i], saved.right()[i]);
        }
        verdicts.demoted = saved.demoted();
        synchronized (entries) {
            entries.put(entryKey, verdicts);
        }
    }

    /**
     * A pool's counts by bin and, by the settings of each watch ({@link PoolCalibration.WatchKey#id}), the classes it
     * keeps closed.
     */
    record SavedPool(long[] right, long[] wrong, Map<String, ClassWatch.Closed> closed) {
    }

    /** An entry's newest verdicts, oldest first, and its demotion. */
    record SavedEntry(float[] similarity, boolean[] right, boolean demoted) {
    }

    /** The newest verdicts of one entry, as similarities of right and of wrong answers. */
    private static final class EntryVerdicts {
        private final float[] similarity = new float[PER_ENTRY];
        private final boolean[] right = new boolean[PER_ENTRY];
        private int count;
        private volatile boolean demoted;

        synchronized void add(float s, boolean r) {
            similarity[count % PER_ENTRY] = s;
            right[count % PER_ENTRY] = r;
            count++;
        }

        synchronized SavedEntry saved() {
            int n = Math.min(count, PER_ENTRY);
            float[] s = new float[n];
            boolean[] r = new boolean[n];
            for (int i = 0; i < n; i++) {
                int at = (count - n + i) % PER_ENTRY;  // oldest first
                s[i] = similarity[at];
                r[i] = right[at];
            }
            return new SavedEntry(s, r, demoted);
        }

        /** {rights at or below {@code s}, wrongs at or above it}: the verdicts that speak for or against it. */
        synchronized int[] around(float s) {
            int[] counts = new int[2];
            for (int i = 0; i < Math.min(count, PER_ENTRY); i++) {
                if (right[i] && similarity[i] <= s) {
                    counts[0]++;
                } else if (!right[i] && similarity[i] >= s) {
                    counts[1]++;
                }
            }
            return counts;
        }
    }
}
