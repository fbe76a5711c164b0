package io.cachegate.gateway.cache.audit;

import io.cachegate.cache.semantic.BudgetedDecision;
import java.util.List;

/**
 * What an error-budgeted lookup that did not serve leaves for after the answer: the candidates whose answers the
 * request's fresh answer is compared with once it is stored.
 *
 * @param pool the route's label, for the metrics
 * @param scope where the verdicts are pooled ({@code Exchange#evidenceScope}: the route and the tenant)
 */
public record Exploration(String pool, String tenant, String scope, List<BudgetedDecision.Candidate> candidates) {

    public Exploration {
        candidates = List.copyOf(candidates);
    }
}
