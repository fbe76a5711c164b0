package io.cachegate.cli.analyze;

import io.cachegate.cache.exact.SemanticText;
import java.util.Optional;

/**
 * What the analyzer learned about one request, before and after comparing it with the earlier ones.
 *
 * @param deterministic the exact cache may store its answer under the default route policy
 * @param sensitive its text holds personal data or a secret: the default policy bypasses the cache for it
 * @param exactRepeat its exact key (default policy: no normalisation) was seen before
 * @param whitespaceRepeat its key with whitespace normalised was seen before (includes exact repeats)
 * @param caseRepeat its key with whitespace and case normalised was seen before (includes both above)
 * @param promptChars characters of the prompt as the prefix router hashes it (model name, newline, prompt)
 * @param prefixChars of those, the leading complete blocks an earlier request already had
 * @param promptTokens estimated prompt tokens (the gateway's heuristic estimate)
 * @param prefixTokens estimated tokens of the shared prefix
 * @param completionTokens {@code max_tokens}, or the assumed completion length when it gives none
 * @param ineligible why the semantic cache would not look it up; empty when it would, or when it is an exact repeat
 * @param similarity the best cosine similarity with an earlier distinct request of its semantic scope; -1 when
 *                   not compared (no earlier one, ineligible, an exact repeat, or the embedder is off)
 */
record RequestFacts(String tenant, String model, boolean deterministic, boolean sensitive, boolean exactRepeat,
                    boolean whitespaceRepeat, boolean caseRepeat, long promptChars, long prefixChars,
                    long promptTokens, long prefixTokens, long completionTokens,
                    Optional<SemanticText.Ineligible> ineligible, float similarity) {
}
