package io.cachegate.cli.analyze;

import io.cachegate.cache.exact.SemanticText;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Running counts of one tenant and model ({@code *} for all traffic): every figure the report shows is a ratio of these. */
final class ScopeTally {

    final String tenant;
    final String model;
    final List<Double> thresholds;
    final double operatingThreshold;
    long requests;
    long deterministic;
    long sensitive;
    long exactRepeats;
    long whitespaceRepeats;
    long caseRepeats;
    long promptChars;
    long prefixChars;
    long promptTokens;
    long prefixTokens;
    /** Requests the semantic cache would look up: not an exact repeat, and eligible. */
    long semanticCandidates;
    /** Of those, the ones compared with at least one earlier request (the embedder on). */
    long compared;
    final long[] nearDuplicates;
    final Map<SemanticText.Ineligible, Long> ineligible = new EnumMap<>(SemanticText.Ineligible.class);
    long exactHits;
    long exactTokensIn;
    long exactTokensOut;
    long semanticHits;
    long semanticTokensIn;
    long semanticTokensOut;

    ScopeTally(String tenant, String model, List<Double> thresholds, double operatingThreshold) {
        this.tenant = tenant;
        this.model = model;
        this.thresholds = List.copyOf(thresholds);
        this.operatingThreshold = operatingThreshold;
        this.nearDuplicates = new long[thresholds.size()];
    }

    void add(RequestFacts f) {
        requests++;
        deterministic += f.deterministic() ? 1 : 0;
        sensitive += f.sensitive() ? 1 : 0;
        exactRepeats += f.exactRepeat() ? 1 : 0;
        whitespaceRepeats += f.whitespaceRepeat() ? 1 : 0;
        caseRepeats += f.caseRepeat() ? 1 : 0;
        promptChars += f.promptChars();
        prefixChars += f.prefixChars();
        promptTokens += f.promptTokens();
        prefixTokens += f.prefixTokens();
        f.ineligible().ifPresent(reason -> ineligible.merge(reason, 1L, Long::sum));
        if (!f.exactRepeat() && f.ineligible().isEmpty()) {
            semanticCandidates++;
        }
        if (f.similarity() >= -0.5f) {
            compared++;
        }
        for (int i = 0; i < nearDuplicates.length; i++) {
            if (f.similarity() >= thresholds.get(i)) {
                nearDuplicates[i]++;
            }
        }
        boolean cacheable = f.deterministic() && !f.sensitive();
        if (cacheable && f.exactRepeat()) {
            exactHits++;
            exactTokensIn += f.promptTokens();
            exactTokensOut += f.completionTokens();
        } else if (cacheable && f.similarity() >= operatingThreshold) {
            semanticHits++;
            semanticTokensIn += f.promptTokens();
            semanticTokensOut += f.completionTokens();
        }
    }
}
