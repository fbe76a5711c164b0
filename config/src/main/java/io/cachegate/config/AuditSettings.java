package io.cachegate.config;

import java.util.Objects;

/**
 * Spot-check audits of semantic hits ({@code cache.semantic.audit}): a share of the hits served is asked again
 * upstream after the client got its answer, and the fresh answer is compared with the served one.
 *
 * @param rate the share of semantic hits audited, in [0, 1]; 0 turns audits off
 * @param perSecond audits started per second at most, whatever the rate (each is an upstream call the cache
 *                  was meant to save)
 * @param answerSimilarity two answers whose texts differ still agree when their embeddings' cosine similarity is
 *                         at least this (answers of a sampling model are rarely equal text)
 * @param onWrong what a wrong verdict does to the entry that was served
 */
public record AuditSettings(double rate, double perSecond, double answerSimilarity, OnWrong onWrong) {

    /** What a wrong audit verdict does to the entry that was served. */
    public enum OnWrong {
        /** The entry answers only exact repeats of its own request from then on, never a paraphrase. */
        DEMOTE,
        /** The entry is removed from both caches. */
        PURGE,
        /** Only the verdict is recorded (it still lowers the entry's estimate under an error budget). */
        RECORD
    }

    public AuditSettings {
        Objects.requireNonNull(onWrong, "onWrong");
        if (!(rate >= 0 && rate <= 1) || !(perSecond > 0) || !(answerSimilarity > 0 && answerSimilarity <= 1)) {
            throw new IllegalArgumentException("audit settings out of range: rate=" + rate + ", perSecond="
                    + perSecond + ", answerSimilarity=" + answerSimilarity);
        }
    }

    /** Every key of {@code cache.semantic.audit} at its default (see {@code CacheKeys}). */
    public static AuditSettings defaults() {
        return new AuditSettings(CacheKeys.AUDIT_RATE.fallback(), CacheKeys.AUDIT_PER_SECOND.fallback(),
                CacheKeys.AUDIT_ANSWER_SIMILARITY.fallback(), CacheKeys.AUDIT_ON_WRONG.fallback());
    }
}
