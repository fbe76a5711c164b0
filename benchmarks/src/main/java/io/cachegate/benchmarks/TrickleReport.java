package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;

/** What {@code bench trickle} prints: the gateway's RSS before, at peak and after, and how it answered each client. */
final class TrickleReport implements ScenarioReport {

    private final BenchTrickleCommand.Measured m;

    TrickleReport(BenchTrickleCommand.Measured measured) {
        this.m = measured;
    }

    @Override
    public String toText() {
        return String.format(Locale.ROOT, """
                bench trickle: %d keyed clients (%d tenant%s) each sending all but the last byte of a %.1f MiB body
                  gateway RSS      before %7.1f MiB   peak %7.1f MiB (+%.1f)   after %7.1f MiB (%+.1f%% of before)
                  trickle clients  %s   (0: body still held when they closed, -1: cut off; peak asked %.1f MiB)
                  other tenant     %d of %d ordinary requests answered 200 meanwhile (p99 %.1f ms)   %s
                """, m.clients(), m.keys(), m.keys() == 1 ? "" : "s", m.bodyBytes() / 1048576.0,
                m.rssBeforeKib() / 1024.0, m.rssPeakKib() / 1024.0, growthKib() / 1024.0, m.rssAfterKib() / 1024.0,
                100.0 * (m.rssAfterKib() - m.rssBeforeKib()) / m.rssBeforeKib(), m.trickleOutcomes(),
                m.peakBytesAsked() / 1048576.0, m.ordinaryOk(), m.ordinarySent(), m.ordinaryP99Ms(),
                m.ordinaryStatuses());
    }

    private long growthKib() {
        return m.rssPeakKib() - m.rssBeforeKib();
    }

    @Override
    public JsonNode json() {
        ObjectNode out = (ObjectNode) BenchJson.tree(m);
        out.put("rss_growth_kib", growthKib());
        out.put("failure", failure());
        return out;
    }

    @Override
    public String failure() {
        if (m.rssBeforeKib() <= 0) {
            return "the gateway's RSS could not be read (/proc)";
        }
        if (growthKib() > m.maxGrowthKib()) {
            return "RSS grew by " + growthKib() / 1024 + " MiB, more than " + m.maxGrowthKib() / 1024 + " MiB";
        }
        if (m.rssAfterKib() > m.rssBeforeKib() * (1 + m.maxAfter())) {
            return "RSS after (" + m.rssAfterKib() / 1024 + " MiB) is not within " + Math.round(m.maxAfter() * 100)
                    + "% of before (" + m.rssBeforeKib() / 1024 + " MiB)";
        }
        if (m.ordinarySent() == 0 || m.ordinaryOk() < m.ordinarySent()) {
            return "the other tenant's requests were not all served: " + m.ordinaryStatuses();
        }
        return null;
    }
}
