package io.cachegate.gateway.cache.audit;

import io.cachegate.cache.semantic.BudgetedDecision;
import java.util.List;

/**
 * What an error-budgeted lookup that did not serve leaves for after the answer: the candidates whose answers the
 * request's fresh answer is compared with once it is stored.
 *
 * @param pool where the verdicts are pooled (the route)
 */
public record Exploration(String pool, String tenant, List<BudgetedDecision.Candidate> candidates) {

    public Exploration {
        candidates = List.copyOf(candidates);
    }
}
