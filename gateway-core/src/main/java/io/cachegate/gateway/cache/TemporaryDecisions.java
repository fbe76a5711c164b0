package io.cachegate.gateway.cache;

import io.cachegate.cache.semantic.CosineThresholdDecision;
import io.cachegate.cache.semantic.GuardedDecision;
import io.cachegate.cache.semantic.MatchDecision;

// TEMPORARY until cache-semantic's MatchDecisions lands; not to be committed.
final class TemporaryDecisions {
    private TemporaryDecisions() {
    }

    static MatchDecision create(String name, double t) {
        return "cosine".equals(name) ? new CosineThresholdDecision(t) : GuardedDecision.withAllGuards(t);
    }
}
