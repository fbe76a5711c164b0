package io.cachegate.routing;

import java.time.Duration;
import java.util.Objects;

/**
 * How a replica's own load report (vLLM {@code /metrics}) converts to tokens added to its in-flight
 * tokens, so requests other gateways sent there count too.
 *
 * @param tokensPerWaitingRequest tokens counted per request queued in the replica
 * @param tokensAtFullKvCache tokens counted at 100% KV cache use (linearly below)
 * @param staleAfter a report older than this is ignored, so a replica whose scrape fails is not
 *     penalised (or favoured) forever
 */
public record ExternalLoadSettings(long tokensPerWaitingRequest, long tokensAtFullKvCache, Duration staleAfter) {

    public ExternalLoadSettings {
        if (tokensPerWaitingRequest < 0) {
            throw new IllegalArgumentException("tokensPerWaitingRequest must not be negative, was "
                    + tokensPerWaitingRequest);
        }
        if (tokensAtFullKvCache < 0) {
            throw new IllegalArgumentException("tokensAtFullKvCache must not be negative, was " + tokensAtFullKvCache);
        }
        Objects.requireNonNull(staleAfter, "staleAfter");
        if (staleAfter.isNegative()) {
            throw new IllegalArgumentException("staleAfter must not be negative, was " + staleAfter);
        }
    }

    /** 1024 tokens per waiting request, 8192 tokens at a full KV cache, stale after 30 s. */
    public static ExternalLoadSettings defaults() {
        return new ExternalLoadSettings(1024, 8192, Duration.ofSeconds(30));
    }
}
