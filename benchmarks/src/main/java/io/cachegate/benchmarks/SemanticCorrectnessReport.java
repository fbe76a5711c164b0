package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * What {@code bench semantic --part correctness} prints: per decision, the semantic hit rate and the true wrong-hit
 * rate over the warm stream, the query stream and its last half, and what the gateway's own audits estimated.
 */
record SemanticCorrectnessReport(List<SemanticCorrectnessBench.Outcome> outcomes) implements ScenarioReport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String toText() {
        ReportText out = new ReportText();
        out.line("Semantic hits against the truth (simulator --answers): hit rate / wrong hits among hits");
        out.line("%-14s %17s %17s %17s %16s %9s %7s", "decision", "warm stream", "query stream", "its last half",
                "audits (wrong)", "explored", "time");
        for (SemanticCorrectnessBench.Outcome o : outcomes) {
            out.line("%-14s %17s %17s %17s %16s %9d %6.0fs", o.variant().name(), cell(o.warm()), cell(o.queries()),
                    cell(o.lastHalf()), o.audited() + " (" + o.auditedWrong() + ")", o.explored(), o.seconds());
        }
        return out.toString();
    }

    private static String cell(SemanticCorrectnessBench.Tally t) {
        return String.format(java.util.Locale.ROOT, "%5.1f%% / %5.2f%%", 100 * t.hitRate(), 100 * t.wrongRate());
    }

    @Override
    public JsonNode json() {
        ArrayNode rows = JSON.createArrayNode();
        for (SemanticCorrectnessBench.Outcome o : outcomes) {
            ObjectNode row = rows.addObject().put("decision", o.variant().name())
                    .put("semanticKeys", o.variant().semanticKeys());
            tally(row.putObject("warm"), o.warm());
            tally(row.putObject("queries"), o.queries());
            tally(row.putObject("queriesLastHalf"), o.lastHalf());
            row.put("audited", o.audited()).put("auditedWrong", o.auditedWrong()).put("explored", o.explored())
                    .put("seconds", o.seconds()).put("errors", o.errors());
        }
        ObjectNode root = JSON.createObjectNode();
        root.set("correctness", rows);
        return root;
    }

    private static void tally(ObjectNode node, SemanticCorrectnessBench.Tally t) {
        node.put("requests", t.requests()).put("exactHits", t.exactHits()).put("semanticHits", t.semanticHits())
                .put("wrongHits", t.wrongHits()).put("hitRate", t.hitRate()).put("wrongRate", t.wrongRate());
    }

    @Override
    public String failure() {
        long errors = outcomes.stream().mapToLong(SemanticCorrectnessBench.Outcome::errors).sum();
        return errors > 0 ? errors + " request errors" : null;
    }
}
