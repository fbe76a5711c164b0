package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.cache.sensitive.Findings;
import io.cachegate.cache.sensitive.SensitiveDataDetector;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.metrics.GatewayMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sensitive-data check of an answer before it is stored, left on the exchange by {@link SensitiveDataStage}
 * for a clean request. A sensitive answer is still served, but it is not stored (route {@code no_store} or
 * {@code private}) or not filed in the semantic index ({@code allow}); counted as bypass reason
 * {@code sensitive_answer}.
 */
public final class AnswerScreen {

    /** The screen the capture applies; absent when the answer is stored as it is. */
    public static final Exchange.Key<AnswerScreen> KEY = Exchange.Key.named("sensitive.answer");

    private static final Logger log = LoggerFactory.getLogger(AnswerScreen.class);

    /** What may be done with an answer. */
    public enum Verdict {
        /** Clean: stored, and filed in the semantic index when the request is. */
        STORE,
        /** Sensitive on an {@code allow} route: stored, but never in the semantic index. */
        EXACT_ONLY,
        /** Sensitive: served, not stored. */
        DROP
    }

    private final SensitiveDataDetector detector;
    private final boolean keepExact;
    private final GatewayMetrics metrics;
    private final String requestId;

    /**
     * @param keepExact the route allows sensitive data ({@code allow}): a sensitive answer is still stored, only
     *                  not filed in the semantic index
     */
    public AnswerScreen(SensitiveDataDetector detector, boolean keepExact, GatewayMetrics metrics, String requestId) {
        this.detector = detector;
        this.keepExact = keepExact;
        this.metrics = metrics;
        this.requestId = requestId;
    }

    /** The verdict on {@code answer}, the parsed JSON document about to be stored. */
    public Verdict check(JsonNode answer) {
        Findings findings = detector.scan(CacheableText.ofAnswer(answer));
        if (!findings.any()) {
            return Verdict.STORE;
        }
        metrics.requests().bypass("sensitive_answer");
        log.debug("request {}: the answer holds sensitive data ({}); {}", requestId, findings.describe(),
                keepExact ? "not filed in the semantic index" : "not stored");
        return keepExact ? Verdict.EXACT_ONLY : Verdict.DROP;
    }
}
