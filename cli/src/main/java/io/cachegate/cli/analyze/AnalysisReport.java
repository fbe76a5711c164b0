package io.cachegate.cli.analyze;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The analyzer's figures as a document ({@link #document()}, what {@code --json} prints; its fields are listed in
 * docs/cli.md) and as aligned text ({@link #text()}). Shares are of all requests of the scope, rounded to four
 * decimals; costs appear only when a price was given.
 */
final class AnalysisReport {

    private final Map<String, Object> document = new LinkedHashMap<>();
    private final double priceIn;
    private final double priceOut;
    private final boolean embedded;

    /**
     * @param embedderModel the embedder's model id; empty when near-duplicates were not searched
     * @param priceIn price per million prompt tokens; 0 leaves costs out
     * @param priceOut price per million completion tokens
     */
    AnalysisReport(String file, LogAnalysis run, Optional<String> embedderModel, double seconds, double priceIn,
                   double priceOut) {
        this.priceIn = priceIn;
        this.priceOut = priceOut;
        this.embedded = embedderModel.isPresent();
        TrafficAnalyzer analyzer = run.analyzer();
        AnalyzerSettings s = analyzer.settings();
        document.put("file", file);
        document.put("lines", run.lines());
        document.put("blank_lines", run.blank());
        document.put("requests", run.requests());
        List<Map<String, Object>> first = new ArrayList<>();
        run.firstMalformed().forEach(m -> first.add(ordered("line", m.line(), "reason", m.reason())));
        document.put("malformed", ordered("count", run.malformed(), "first", first));
        document.put("seconds", round(seconds, 2));
        document.put("requests_per_second", seconds > 0 ? Math.round(run.requests() / seconds) : 0);
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("embedder", embedderModel.orElse(null));
        settings.put("thresholds", s.thresholds());
        settings.put("threshold", s.threshold());
        settings.put("block_chars", s.blockChars());
        settings.put("completion_tokens", s.completionTokens());
        settings.put("price_in", priceIn);
        settings.put("price_out", priceOut);
        settings.put("max_keys", s.maxKeys());
        settings.put("max_prefix_blocks", s.maxPrefixBlocks());
        settings.put("max_vectors", s.maxVectors());
        document.put("settings", settings);
        document.put("bounds", ordered("distinct_keys", analyzer.distinctKeys(), "keys_saturated",
                analyzer.keysSaturated(), "vectors_evicted", analyzer.vectorsEvicted()));
        document.put("overall", scope(analyzer.overall()));
        List<Map<String, Object>> groups = new ArrayList<>();
        analyzer.groups().forEach(g -> groups.add(scope(g)));
        document.put("groups", groups);
    }

    /** The report as nested maps and lists, for a JSON writer. */
    Map<String, Object> document() {
        return document;
    }

    private Map<String, Object> scope(ScopeTally t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tenant", t.tenant);
        m.put("model", t.model);
        m.put("requests", t.requests);
        m.put("deterministic_share", share(t.deterministic, t.requests));
        m.put("sensitive_share", share(t.sensitive, t.requests));
        m.put("exact_repeat_share", share(t.exactRepeats, t.requests));
        m.put("whitespace_repeat_share", share(t.whitespaceRepeats, t.requests));
        m.put("case_repeat_share", share(t.caseRepeats, t.requests));
        m.put("prefix", ordered("share", share(t.prefixChars, t.promptChars), "shared_chars", t.prefixChars,
                "prompt_chars", t.promptChars, "shared_tokens", t.prefixTokens, "prompt_tokens", t.promptTokens));
        Map<String, Object> semantic = new LinkedHashMap<>();
        if (!embedded) {
            m.put("semantic", null);
            m.put("projected", ordered("exact", layer(t.exactHits, t.requests, t.exactTokensIn, t.exactTokensOut),
                    "semantic", null, "total", layer(t.exactHits, t.requests, t.exactTokensIn, t.exactTokensOut)));
            return m;
        }
        semantic.put("candidates", t.semanticCandidates);
        semantic.put("compared", t.compared);
        Map<String, Object> ineligible = new LinkedHashMap<>();
        t.ineligible.forEach((reason, n) -> ineligible.put(reason.name().toLowerCase(Locale.ROOT), n));
        semantic.put("ineligible", ineligible);
        Map<String, Object> near = new LinkedHashMap<>();
        for (int i = 0; i < t.thresholds.size(); i++) {
            near.put(String.format(Locale.ROOT, "%.2f", t.thresholds.get(i)),
                    share(t.nearDuplicates[i], t.requests));
        }
        semantic.put("near_duplicate_share", near);
        m.put("semantic", semantic);
        Map<String, Object> projected = new LinkedHashMap<>();
        projected.put("exact", layer(t.exactHits, t.requests, t.exactTokensIn, t.exactTokensOut));
        projected.put("semantic", layer(t.semanticHits, t.requests, t.semanticTokensIn, t.semanticTokensOut));
        projected.put("total", layer(t.exactHits + t.semanticHits, t.requests, t.exactTokensIn + t.semanticTokensIn,
                t.exactTokensOut + t.semanticTokensOut));
        m.put("projected", projected);
        return m;
    }

    private Map<String, Object> layer(long hits, long requests, long tokensIn, long tokensOut) {
        Map<String, Object> m = ordered("hits", hits, "hit_rate", share(hits, requests), "tokens_in_saved", tokensIn,
                "tokens_out_saved", tokensOut);
        if (priceIn > 0 || priceOut > 0) {
            m.put("cost_saved", round((tokensIn * priceIn + tokensOut * priceOut) / 1e6, 4));
        }
        return m;
    }

    /** Aligned text: a header, one table of shares, one of projected savings, the malformed lines. */
    @SuppressWarnings("unchecked")
    String text() {
        StringBuilder out = new StringBuilder();
        Map<String, Object> settings = (Map<String, Object>) document.get("settings");
        Map<String, Object> malformed = (Map<String, Object>) document.get("malformed");
        out.append(String.format(Locale.ROOT, "%s: %,d requests, %,d malformed, %,d blank lines; %.2f s (%,d requests/s)%n",
                document.get("file"), (Long) document.get("requests"), (Long) malformed.get("count"),
                (Long) document.get("blank_lines"), (Double) document.get("seconds"),
                (Long) document.get("requests_per_second")));
        out.append(embedded ? "embedder: " + settings.get("embedder") : "embedder: off (--no-semantic)").append('\n');
        List<Map<String, Object>> rows = new ArrayList<>();
        rows.add((Map<String, Object>) document.get("overall"));
        rows.addAll((List<Map<String, Object>>) document.get("groups"));
        if (rows.size() == 2) {
            rows.remove(1); // one tenant and model: the overall row says it all
        }
        int width = Math.max("projected savings".length(), rows.stream().mapToInt(r -> label(r).length()).max()
                .orElse(0)) + 2;
        List<Double> thresholds = (List<Double>) settings.get("thresholds");
        out.append('\n').append(pad("share of requests", width)).append(String.format(Locale.ROOT,
                "%9s %7s %7s %7s %7s %7s %7s", "requests", "determ", "sensit", "exact", "space", "case", "prefix"));
        for (double th : thresholds) {
            out.append(String.format(Locale.ROOT, " %7s", String.format(Locale.ROOT, "~%.2f", th)));
        }
        out.append('\n');
        for (Map<String, Object> r : rows) {
            Map<String, Object> prefix = (Map<String, Object>) r.get("prefix");
            Map<String, Object> semantic = (Map<String, Object>) r.get("semantic");
            out.append(pad(label(r), width)).append(String.format(Locale.ROOT, "%,9d %7s %7s %7s %7s %7s %7s",
                    (Long) r.get("requests"), pct(r.get("deterministic_share")), pct(r.get("sensitive_share")),
                    pct(r.get("exact_repeat_share")),
                    pct(r.get("whitespace_repeat_share")), pct(r.get("case_repeat_share")), pct(prefix.get("share"))));
            for (double th : thresholds) {
                Object share = semantic == null ? null : ((Map<String, Object>) semantic.get("near_duplicate_share"))
                        .get(String.format(Locale.ROOT, "%.2f", th));
                out.append(String.format(Locale.ROOT, " %7s", pct(share)));
            }
            out.append('\n');
        }
        boolean priced = priceIn > 0 || priceOut > 0;
        out.append('\n').append(pad("projected savings", width)).append(String.format(Locale.ROOT,
                "%9s %9s %12s %12s %9s %12s", "exact", "hit rate", "tokens in", "tokens out", "semantic", "tokens in"));
        out.append(String.format(Locale.ROOT, " %12s%s%n", "tokens out", priced ? String.format(Locale.ROOT,
                " %12s", "cost saved") : ""));
        for (Map<String, Object> r : rows) {
            Map<String, Object> projected = (Map<String, Object>) r.get("projected");
            Map<String, Object> exact = (Map<String, Object>) projected.get("exact");
            Map<String, Object> semantic = (Map<String, Object>) projected.get("semantic");
            Map<String, Object> total = (Map<String, Object>) projected.get("total");
            out.append(pad(label(r), width)).append(String.format(Locale.ROOT, "%,9d %9s %,12d %,12d",
                    (Long) exact.get("hits"), pct(exact.get("hit_rate")), (Long) exact.get("tokens_in_saved"),
                    (Long) exact.get("tokens_out_saved")));
            if (semantic == null) {
                out.append(String.format(Locale.ROOT, " %9s %12s %12s", "-", "-", "-"));
            } else {
                out.append(String.format(Locale.ROOT, " %,9d %,12d %,12d", (Long) semantic.get("hits"),
                        (Long) semantic.get("tokens_in_saved"), (Long) semantic.get("tokens_out_saved")));
            }
            if (priced) {
                out.append(String.format(Locale.ROOT, " %12.2f", (Double) total.get("cost_saved")));
            }
            out.append('\n');
        }
        out.append(String.format(Locale.ROOT, "%nsensit: holds personal data or a secret (bypassed by default); exact:"
                + " exact key (temperature 0 or a seed; default policy); space/case: key after normalising whitespace/also case; prefix: prompt characters in %s-character blocks an"
                + " earlier request began with; ~T: near-duplicate of an earlier distinct request at cosine >= T;"
                + " semantic hits at %.2f%s.%n", settings.get("block_chars"), (Double) settings.get("threshold"),
                embedded ? "" : " (embedder off)"));
        Map<String, Object> overallSemantic = (Map<String, Object>) rows.get(0).get("semantic");
        if (overallSemantic != null) {
            out.append(String.format(Locale.ROOT, "semantic lookups: %,d requests eligible (not exact repeats), %,d with"
                    + " an earlier request of their scope; not eligible: %s%n", (Long) overallSemantic.get("candidates"),
                    (Long) overallSemantic.get("compared"), overallSemantic.get("ineligible")));
        }
        Map<String, Object> bounds = (Map<String, Object>) document.get("bounds");
        if ((Boolean) bounds.get("keys_saturated") || (Long) bounds.get("vectors_evicted") > 0) {
            out.append("bounds reached: ").append(bounds).append(" (repeats beyond them are under-counted)\n");
        }
        for (Map<String, Object> m : (List<Map<String, Object>>) malformed.get("first")) {
            out.append("malformed line ").append(m.get("line")).append(": ").append(m.get("reason")).append('\n');
        }
        return out.toString();
    }

    private static String label(Map<String, Object> row) {
        return "*".equals(row.get("tenant")) ? "all" : row.get("tenant") + " / " + row.get("model");
    }

    private static String pad(String text, int width) {
        return String.format(Locale.ROOT, "%-" + width + "s", text);
    }

    /** One decimal, two below 1% so a small non-zero share does not read as zero. */
    private static String pct(Object share) {
        if (share == null) {
            return "-";
        }
        double percent = 100 * ((Number) share).doubleValue();
        return String.format(Locale.ROOT, percent > 0 && percent < 1 ? "%.2f%%" : "%.1f%%", percent);
    }

    private static double share(long part, long whole) {
        return whole == 0 ? 0 : round((double) part / whole, 4);
    }

    private static double round(double value, int decimals) {
        double scale = Math.pow(10, decimals);
        return Math.round(value * scale) / scale;
    }

    private static Map<String, Object> ordered(Object... keyValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put((String) keyValues[i], keyValues[i + 1]);
        }
        return m;
    }
}
