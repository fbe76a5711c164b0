package io.cachegate.cache.semantic;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides whether a query is served by one of its scope's nearest neighbours. Implementations are
 * deterministic (the same query and neighbours give the same answer), thread-safe and cheap: they run
 * on the request path after the search.
 */
public interface MatchDecision {

    /**
     * The neighbour that answers the query, if any.
     *
     * @param queryText the embedded text of the query (guards compare it with the neighbour's text)
     * @param queryVector its vector, unit length
     * @param neighbours the nearest entries of the query's scope, in any order
     * @param requestThreshold a per-request threshold ({@code X-Cache-Threshold}); it only counts when it is
     *     stricter than the decision's own, so a request can never loosen the policy. 0 for none.
     */
    Optional<Match> decide(String queryText, float[] queryVector, List<Neighbour> neighbours, double requestThreshold);

    /** {@link #decide(String, float[], List, double)} without a per-request threshold. */
    default Optional<Match> decide(String queryText, float[] queryVector, List<Neighbour> neighbours) {
        return decide(queryText, queryVector, neighbours, 0);
    }

    /** The configured similarity threshold, before any per-request tightening. */
    double threshold();

    /** A hit: the neighbour that answers, and the similarity reported for it ({@code X-Cache-Similarity}). */
    record Match(Neighbour neighbour, float similarity) {

        public Match {
            Objects.requireNonNull(neighbour, "neighbour");
        }
    }
}
