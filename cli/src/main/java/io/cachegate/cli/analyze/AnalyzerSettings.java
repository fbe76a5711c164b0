package io.cachegate.cli.analyze;

import java.util.List;

/**
 * How the analyzer compares requests and the bounds of its memory.
 *
 * @param blockChars characters per prefix block, as the routing policy's {@code prefix_affinity.block_chars}
 * @param maxPrefixBlocks prefix block hashes remembered (least recently used dropped first)
 * @param maxKeys digests remembered per key set (exact, whitespace, case); new keys beyond it are not remembered
 * @param maxVectors embedded requests kept for near-duplicate search; the oldest dropped first
 * @param maxGroups tenant and model pairs reported apart; the rest are summed under {@code (other)}
 * @param thresholds similarities at which near-duplicates are counted
 * @param threshold the semantic layer's threshold for the projected hits
 * @param completionTokens output tokens assumed for a request that gives no {@code max_tokens}
 */
record AnalyzerSettings(int blockChars, int maxPrefixBlocks, long maxKeys, int maxVectors, int maxGroups,
                               List<Double> thresholds, double threshold, long completionTokens) {

    public AnalyzerSettings {
        thresholds = thresholds.stream().sorted().distinct().toList();
        if (blockChars < 1 || maxPrefixBlocks < 1 || maxKeys < 1 || maxVectors < 1 || maxGroups < 1
                || completionTokens < 0) {
            throw new IllegalArgumentException("analyzer bounds must be positive");
        }
        for (double t : thresholds) {
            requireSimilarity(t);
        }
        requireSimilarity(threshold);
    }

    private static void requireSimilarity(double t) {
        if (!(t > 0 && t <= 1)) {
            throw new IllegalArgumentException("a similarity threshold must be in (0, 1], was " + t);
        }
    }
}
