package io.cachegate.cache.exact;

import java.util.Collection;
import java.util.Objects;
import java.util.Set;

/**
 * One stored answer: the complete, successful response body as the backend sent it (a
 * non-streaming JSON document; streamed answers are assembled into one first) and what is known
 * about it.
 *
 * @param body the response body, a JSON document
 * @param createdAtMillis when the answer was generated (epoch milliseconds), for {@code Age} and {@code max-age}
 * @param modelVersion the model version that generated it
 * @param originRequestId the X-Request-Id of the request that generated it, so a bad answer can be traced
 * @param promptTokens usage.prompt_tokens of the answer (0 when unknown)
 * @param completionTokens usage.completion_tokens of the answer (0 when unknown), for "tokens saved"
 * @param tags the X-Cache-Tags the answer was stored under, for purge by tag
 * @param labels the access labels the request declared ({@code X-Cache-Labels}): a reader's key must hold every
 *               one of them; empty for an unlabelled entry
 * @param userDigest the {@link UserDigest} of the end user it was written for, for purge by user; "" for none
 * @param originSpan the traced span of the request that generated it, for a hit's trace to link to; null when that
 *                   request was not traced (or not sampled)
 * @param freshForMillis how long after {@code createdAtMillis} the entry is fresh (the TTL it was written with) when
 *                       it is kept longer than that to answer stale; 0 when it is kept only while fresh
 */
public record CacheEntry(byte[] body, long createdAtMillis, String modelVersion, String originRequestId,
                         int promptTokens, int completionTokens, Set<String> tags, Set<String> labels,
                         String userDigest, OriginSpan originSpan, long freshForMillis) {

    public CacheEntry {
        tags = Set.copyOf(tags);
        labels = Set.copyOf(labels);
        Objects.requireNonNull(userDigest, "userDigest");
        if (freshForMillis < 0) {
            throw new IllegalArgumentException("freshForMillis must not be negative, was " + freshForMillis);
        }
    }

    /** An entry kept only while it is fresh. */
    public CacheEntry(byte[] body, long createdAtMillis, String modelVersion, String originRequestId,
                      int promptTokens, int completionTokens, Set<String> tags, Set<String> labels,
                      String userDigest, OriginSpan originSpan) {
        this(body, createdAtMillis, modelVersion, originRequestId, promptTokens, completionTokens, tags, labels,
                userDigest, originSpan, 0);
    }

    /** An entry from an untraced request. */
    public CacheEntry(byte[] body, long createdAtMillis, String modelVersion, String originRequestId,
                      int promptTokens, int completionTokens, Set<String> tags, Set<String> labels,
                      String userDigest) {
        this(body, createdAtMillis, modelVersion, originRequestId, promptTokens, completionTokens, tags, labels,
                userDigest, null);
    }

    /** An unlabelled entry written for no particular end user. */
    public CacheEntry(byte[] body, long createdAtMillis, String modelVersion, String originRequestId,
                      int promptTokens, int completionTokens, Set<String> tags) {
        this(body, createdAtMillis, modelVersion, originRequestId, promptTokens, completionTokens, tags, Set.of(), "");
    }

    /** This entry, fresh for {@code millis} after it was generated and kept longer than that to answer stale. */
    public CacheEntry freshFor(long millis) {
        return new CacheEntry(body, createdAtMillis, modelVersion, originRequestId, promptTokens, completionTokens,
                tags, labels, userDigest, originSpan, millis);
    }

    /** True when the entry is within its TTL at {@code nowMillis}; one kept only while fresh always is. */
    public boolean freshAt(long nowMillis) {
        return freshForMillis == 0 || nowMillis - createdAtMillis < freshForMillis;
    }

    /** True when a reader holding {@code heldLabels} may be served this entry: it holds every label of it. */
    public boolean readableWith(Collection<String> heldLabels) {
        return labels.isEmpty() || heldLabels.containsAll(labels);
    }

    /** Seconds since the answer was generated, never negative. */
    public long ageSeconds(long nowMillis) {
        return Math.max(0, (nowMillis - createdAtMillis) / 1000);
    }
}
