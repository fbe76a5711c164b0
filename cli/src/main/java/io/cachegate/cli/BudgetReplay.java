package io.cachegate.cli;

import io.cachegate.cache.semantic.BudgetedDecision;
import io.cachegate.cache.semantic.ClassSpending;
import io.cachegate.cache.semantic.ClassWatch;
import io.cachegate.cache.semantic.EvidenceFile;
import io.cachegate.cache.semantic.HitEvidence;
import io.cachegate.cache.semantic.LearnedDecision;
import io.cachegate.cache.semantic.Neighbour;
import io.cachegate.cache.semantic.NeighbourhoodAgreement;
import io.cachegate.cache.semantic.ProbabilityBins;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Replays a labelled stream through the gateway's error-budgeted decision as the gateway runs it, offline: the
 * cache starts empty, each request is judged against the entries stored before it, a hit is audited at the audit
 * rate (a wrong audit demotes the entry), a miss is stored with its answer and its unserved candidates are explored
 * (the fresh answer compared with theirs). A hit is wrong when its entry's answer is not the request's. What the
 * gateway does asynchronously (audits, explorations) happens at once here, so the figures are those of a gateway
 * whose background work keeps up.
 */
final class BudgetReplay {

    /** Nearest earlier rows kept per request; the decision sees the first {@link NeighbourhoodAgreement#NEIGHBOURS} stored ones. */
    private static final int EARLIER = 24;
    private static final String SCOPE = "route";

    /** One request of a stream: its text, the answer it gets upstream, its vector. */
    record Item(String text, String answer, float[] vector) {
    }

    /**
     * Figures of one replay: all of the stream and its last half; the verdicts filed by the end per bin of the prior
     * ({right, wrong} each) and the hits served per bin, to see where the classes open.
     */
    record Result(long requests, long hits, long wrong, long lastRequests, long lastHits, long lastWrong,
                  long audits, long explored, long[][] binVerdicts, long[] binHits, long[][] firstHalfVerdicts,
                  long closings) {

        Result(long requests, long hits, long wrong, long lastRequests, long lastHits, long lastWrong, long audits,
               long explored) {
            this(requests, hits, wrong, lastRequests, lastHits, lastWrong, audits, explored,
                    new long[ProbabilityBins.COUNT][2], new long[ProbabilityBins.COUNT],
                    new long[ProbabilityBins.COUNT][2], 0);
        }

        double hitRate() {
            return requests == 0 ? 0 : (double) hits / requests;
        }

        double wrongRate() {
            return hits == 0 ? 0 : (double) wrong / hits;
        }

        double lastHitRate() {
            return lastRequests == 0 ? 0 : (double) lastHits / lastRequests;
        }

        double lastWrongRate() {
            return lastHits == 0 ? 0 : (double) lastWrong / lastHits;
        }
    }

    private final List<Item> items;
    private final int[][] earlier;
    private final float[][] earlierSimilarity;

    /** Finds each request's nearest earlier requests once; every replay of the stream reuses them. */
    BudgetReplay(List<Item> items) {
        this.items = List.copyOf(items);
        this.earlier = new int[items.size()][];
        this.earlierSimilarity = new float[items.size()][];
        for (int i = 0; i < items.size(); i++) {
            int size = Math.min(EARLIER, i);
            int[] best = new int[size];
            float[] scores = new float[size];
            java.util.Arrays.fill(scores, Float.NEGATIVE_INFINITY);
            float[] q = items.get(i).vector();
            for (int j = 0; j < i; j++) {
                float s = BruteForceNeighbours.dot(q, items.get(j).vector());
                if (size > 0 && s > scores[size - 1]) {
                    int at = size - 1;
                    while (at > 0 && s > scores[at - 1]) {
                        scores[at] = scores[at - 1];
                        best[at] = best[at - 1];
                        at--;
                    }
                    scores[at] = s;
                    best[at] = j;
                }
            }
            earlier[i] = best;
            earlierSimilarity[i] = scores;
        }
    }

    /**
     * @param delta the bound's delta, 0 for the point estimate
     * @param nested the bound's classes: nested (a bin and those above it) or one bin each
     * @param auditRate the share of hits audited
     * @param agreementFit another fit's agreement weights and bins, or null for the shipped ones
     */
    Result run(double budget, double delta, boolean nested, double auditRate, double threshold, long seed,
               double[][] agreementFit) {
        return run(budget, delta, nested ? ClassSpending.Plan.DEFAULT : null, auditRate,
                LearnedDecision.bundled(threshold), seed, agreementFit);
    }

    /**
     * The same with another pair classifier's vetoes (a guard measured as a lever) and the nested classes' plan
     * ({@link ClassSpending}; null: each bin alone).
     */
    Result run(double budget, double delta, ClassSpending.Plan plan, double auditRate, LearnedDecision pairs,
               long seed, double[][] agreementFit) {
        return run(budget, delta, plan, ClassWatch.DEFAULT, auditRate, pairs, seed, agreementFit);
    }

    /** The same with the nested classes followed after they open by {@code watch} ({@link ClassWatch}). */
    Result run(double budget, double delta, ClassSpending.Plan plan, ClassWatch watch, double auditRate,
               LearnedDecision pairs, long seed, double[][] agreementFit) {
        return run(budget, delta, plan, watch, auditRate, pairs, seed, agreementFit, Restart.NONE, 0);
    }

    /** What a restart before request {@code restartAt} does to the error budget's evidence (the index is kept). */
    enum Restart {
        /** No restart. */
        NONE,
        /** The evidence is lost: the gateway before {@code EvidenceFile}, or with Qdrant. */
        LOSE,
        /** The evidence is written to a file and read back, as {@code EvidenceKeeper} does at a stop and start. */
        KEEP
    }

    /** The same with a restart of the gateway before request {@code restartAt}. */
    Result run(double budget, double delta, ClassSpending.Plan plan, ClassWatch watch, double auditRate,
               LearnedDecision pairs, long seed, double[][] agreementFit, Restart restart, int restartAt) {
        return run(budget, delta, plan, watch, auditRate, pairs, seed, agreementFit, restart, restartAt, Fleet.ONE);
    }

    /**
     * Gateways over one shared index (Qdrant's), the stream's requests dealt to them in turn, as a load balancer
     * would: each with evidence of its own, or sharing it ({@code SharedEvidence}: here at once, in the gateway
     * within a quarter of a second).
     */
    record Fleet(int gateways, boolean shared) {

        static final Fleet ONE = new Fleet(1, false);

        Fleet {
            if (gateways < 1) {
                throw new IllegalArgumentException("a fleet has at least one gateway, not " + gateways);
            }
        }

        /** {@code N} (each its own evidence) or {@code N:shared}. */
        static Fleet parse(String spec) {
            String[] parts = spec.strip().split(":", -1);
            boolean shared = parts.length == 2 && parts[1].equals("shared");
            if (parts.length > 2 || parts.length == 2 && !shared || !parts[0].matches("[1-9][0-9]{0,3}")) {
                throw new IllegalArgumentException("a fleet is N or N:shared (N from 1 to 9999), not '" + spec + "'");
            }
            return new Fleet(Integer.parseInt(parts[0]), shared);
        }

        String label() {
            return gateways + (shared ? ":shared" : "");
        }
    }

    /**
     * The same replayed by {@code fleet}: the verdicts by bin and the watch's closings of the result are those of
     * the first gateway.
     */
    Result run(double budget, double delta, ClassSpending.Plan plan, ClassWatch watch, double auditRate,
               LearnedDecision pairs, long seed, double[][] agreementFit, Restart restart, int restartAt,
               Fleet fleet) {
        if (restart != Restart.NONE && fleet.gateways() > 1) {
            throw new IllegalArgumentException("a restart is replayed for one gateway");
        }
        HitEvidence[] evidence = new HitEvidence[fleet.gateways()];
        BudgetedDecision[] decision = new BudgetedDecision[fleet.gateways()];
        for (int g = 0; g < evidence.length; g++) {
            evidence[g] = new HitEvidence(Math.max(1, items.size()));
            decision[g] = decision(evidence[g], pairs, budget, delta, plan, watch, agreementFit);
        }
        if (fleet.shared()) {
            for (HitEvidence here : evidence) {
                here.onFiled(filed -> {
                    for (HitEvidence other : evidence) {
                        if (other != here) {
                            other.apply(filed);
                        }
                    }
                });
            }
        }
        Random random = new Random(seed);
        boolean[] stored = new boolean[items.size()];
        int half = items.size() / 2;
        long hits = 0;
        long wrong = 0;
        long lastHits = 0;
        long lastWrong = 0;
        long audits = 0;
        long explored = 0;
        long[] binHits = new long[ProbabilityBins.COUNT];
        long[][] firstHalf = null;
        for (int i = 0; i < items.size(); i++) {
            if (i == half) {
                firstHalf = binVerdicts(evidence[0]);
            }
            if (i == restartAt && restart != Restart.NONE) {
                evidence[0] = restarted(evidence[0], restart);
                decision[0] = decision(evidence[0], pairs, budget, delta, plan, watch, agreementFit);
            }
            HitEvidence here = evidence[i % evidence.length];
            Item item = items.get(i);
            List<Neighbour> neighbours = new ArrayList<>(NeighbourhoodAgreement.NEIGHBOURS);
            for (int r = 0; r < earlier[i].length && neighbours.size() < NeighbourhoodAgreement.NEIGHBOURS; r++) {
                int j = earlier[i][r];
                String key = Integer.toString(j);
                if (stored[j] && !here.demoted(key)) {
                    neighbours.add(new Neighbour(key, earlierSimilarity[i][r], items.get(j).text(), 0, Long.MAX_VALUE));
                }
            }
            BudgetedDecision judging = decision[i % decision.length];
            BudgetedDecision.Judgement judged = judging.judge(SCOPE, item.text(), neighbours, 0);
            if (judged.served().isPresent()) {
                BudgetedDecision.Candidate c = judged.served().get();
                boolean right = answerOf(c).equals(item.answer());
                hits++;
                binHits[ProbabilityBins.of(c.prior())]++;
                wrong += right ? 0 : 1;
                if (i >= half) {
                    lastHits++;
                    lastWrong += right ? 0 : 1;
                }
                if (random.nextDouble() < Math.max(auditRate, c.freshAuditRate(judging, SCOPE))) {
                    audits++;
                    here.record(SCOPE, c.neighbour().entryKey(), c.neighbour().similarity(), c.prior(), right);
                    if (!right) {
                        here.demote(c.neighbour().entryKey());
                    }
                }
                continue;
            }
            String key = Integer.toString(i);
            stored[i] = true;
            here.fileAnswer(key, item.answer());
            for (BudgetedDecision.Candidate c : judged.explore()) {
                explored++;
                here.recordPair(SCOPE, c.neighbour().entryKey(), key, c.neighbour().similarity(), c.prior(),
                        answerOf(c).equals(item.answer()));
            }
        }
        return new Result(items.size(), hits, wrong, items.size() - half, lastHits, lastWrong, audits, explored,
                binVerdicts(evidence[0]), binHits, firstHalf == null ? binVerdicts(evidence[0]) : firstHalf,
                decision[0].spending() == null ? 0 : evidence[0].watchClosings(SCOPE, decision[0].spending(), watch));
    }

    private static BudgetedDecision decision(HitEvidence evidence, LearnedDecision pairs, double budget, double delta,
                                             ClassSpending.Plan plan, ClassWatch watch, double[][] agreementFit) {
        NeighbourhoodAgreement agreement = agreementFit == null ? new NeighbourhoodAgreement(evidence.answers())
                : new NeighbourhoodAgreement(evidence.answers(), agreementFit[0], agreementFit[1]);
        return new BudgetedDecision(pairs, agreement, evidence, budget, delta, plan, watch);
    }

    /** The evidence a restarted gateway starts with. */
    private HitEvidence restarted(HitEvidence before, Restart restart) {
        HitEvidence after = new HitEvidence(Math.max(1, items.size()));
        if (restart == Restart.KEEP) {
            try {
                Path file = Files.createTempFile("cachegate-replay-evidence", ".bin");
                try {
                    EvidenceFile.write(file, "replay", before);
                    EvidenceFile.read(file, "replay", after);
                } finally {
                    Files.deleteIfExists(file);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return after;
    }

    /** {right, wrong} verdicts filed so far by bin of the prior. */
    private static long[][] binVerdicts(HitEvidence evidence) {
        long[][] counts = new long[ProbabilityBins.COUNT][];
        for (int b = 0; b < ProbabilityBins.COUNT; b++) {
            counts[b] = evidence.verdicts(SCOPE, 1 - Math.pow(10, -(b + 0.5) / 4));
        }
        return counts;
    }

    private String answerOf(BudgetedDecision.Candidate c) {
        return items.get(Integer.parseInt(c.neighbour().entryKey())).answer();
    }
}
