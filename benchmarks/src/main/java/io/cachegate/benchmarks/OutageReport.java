package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.benchmarks.OutageLoad.Kind;
import io.cachegate.benchmarks.OutageLoad.Outcome;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What {@code bench overload --scenario outage} prints: per second of the run, the answers to requests for an entry
 * within its TTL or stale window (fresh hit, stale, generated) and their errors, and the answers and errors of the
 * others (new prompts); then the totals by phase, and the simulator's calls after its restart set against the stale
 * entries refreshed. Pure arithmetic and formatting.
 *
 * @param outageFrom the second the simulator was killed in; {@code outageTo} the second it was back
 * @param restartNanos when the new simulator was started ({@link System#nanoTime()}): later requests could reach it
 * @param simCalls the new simulator's inference calls by the end of the run
 */
record OutageReport(List<Outcome> outcomes, int seconds, int outageFrom, int outageTo, long restartNanos,
                    long simCalls, int entries, double rate, long ttlSeconds, long staleIfErrorSeconds)
        implements ScenarioReport {

    long count(boolean cached, Kind kind, int fromSecond, int toSecond) {
        return outcomes.stream().filter(o -> o.cached() == cached && o.kind() == kind && o.second() >= fromSecond
                && o.second() < toSecond).count();
    }

    /** Requests for entries within their window that were answered with an error: the target is none. */
    long cachedErrors() {
        return count(true, Kind.ERROR, 0, Integer.MAX_VALUE);
    }

    /** Errors of new prompts sent while the simulator was down, by status or failure. */
    Map<String, Long> outageErrors() {
        return outcomes.stream().filter(o -> !o.cached() && o.kind() == Kind.ERROR && o.second() >= outageFrom
                && o.second() < outageTo).collect(Collectors.groupingBy(Outcome::error, TreeMap::new,
                Collectors.counting()));
    }

    /** Generated answers after the restart, made for the request itself, of new prompts: one call each. */
    long newPromptCalls() {
        return outcomes.stream().filter(o -> !o.cached() && o.led() && o.sentNanos() >= restartNanos).count();
    }

    /** Entries refreshed after the restart: those a request led a call for. */
    long refreshedEntries() {
        return outcomes.stream().filter(o -> o.cached() && o.led() && o.sentNanos() >= restartNanos)
                .map(Outcome::entry).distinct().count();
    }

    /** The most calls any entry's requests led after the restart (1: one refresh each). */
    long mostCallsForOneEntry() {
        return outcomes.stream().filter(o -> o.cached() && o.led() && o.sentNanos() >= restartNanos)
                .collect(Collectors.groupingBy(Outcome::entry, Collectors.counting())).values().stream()
                .mapToLong(Long::longValue).max().orElse(0);
    }

    /** The simulator's calls after the restart that were not for new prompts: the stale entries' refreshes. */
    long staleEntryCalls() {
        return simCalls - newPromptCalls();
    }

    private String phase(int second) {
        return second < outageFrom ? "before" : second < outageTo ? "outage" : "after";
    }

    @Override
    public String toText() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "backend outage: %.0f requests/s, open loop, half of them repeats of %d "
                + "entries (ttl %d s, stale_if_error %d s; they expire during the outage), half new prompts; the "
                + "simulator killed in second %d, back in second %d%n", rate, entries, ttlSeconds,
                staleIfErrorSeconds, outageFrom, outageTo));
        out.append(String.format(Locale.ROOT, "%6s %-7s | %-33s | %-16s%n", "", "",
                "entry within its TTL/stale window", "no entry"));
        out.append(String.format(Locale.ROOT, "%6s %-7s | %7s %7s %9s %6s | %9s %6s%n", "second", "phase", "hit",
                "stale", "generated", "errors", "generated", "errors"));
        for (int s = 0; s < seconds; s++) {
            out.append(String.format(Locale.ROOT, "%6d %-7s | %7d %7d %9d %6d | %9d %6d%n", s, phase(s),
                    count(true, Kind.HIT, s, s + 1), count(true, Kind.STALE, s, s + 1),
                    count(true, Kind.GENERATED, s, s + 1), count(true, Kind.ERROR, s, s + 1),
                    count(false, Kind.GENERATED, s, s + 1), count(false, Kind.ERROR, s, s + 1)));
        }
        out.append("totals\n");
        int[][] phases = {{0, outageFrom}, {outageFrom, outageTo}, {outageTo, Integer.MAX_VALUE}};
        for (int[] p : phases) {
            out.append(String.format(Locale.ROOT, "%6s %-7s | %7d %7d %9d %6d | %9d %6d%n", "", phase(p[0]),
                    count(true, Kind.HIT, p[0], p[1]), count(true, Kind.STALE, p[0], p[1]),
                    count(true, Kind.GENERATED, p[0], p[1]), count(true, Kind.ERROR, p[0], p[1]),
                    count(false, Kind.GENERATED, p[0], p[1]), count(false, Kind.ERROR, p[0], p[1])));
        }
        out.append(String.format(Locale.ROOT, "errors of requests for entries within their window: %d (target 0: %s)%n",
                cachedErrors(), cachedErrors() == 0 ? "met" : "not met"));
        out.append(String.format(Locale.ROOT, "errors of the others during the outage, by status: %s%n",
                outageErrors()));
        out.append(String.format(Locale.ROOT, "after the restart: %d simulator calls, %d for new prompts, %d for the "
                + "stale entries; %d of %d entries refreshed, at most %d call(s) for one (target one each: %s)%n",
                simCalls, newPromptCalls(), staleEntryCalls(), refreshedEntries(), entries, mostCallsForOneEntry(),
                oneEach() ? "met" : "not met"));
        return out.toString();
    }

    private boolean oneEach() {
        return refreshedEntries() > 0 && mostCallsForOneEntry() == 1 && staleEntryCalls() == refreshedEntries();
    }

    @Override
    public JsonNode json() {
        ObjectNode root = BenchJson.object().put("scenario", "outage").put("rate", rate).put("entries", entries)
                .put("ttl_seconds", ttlSeconds).put("stale_if_error_seconds", staleIfErrorSeconds)
                .put("outage_from_second", outageFrom).put("outage_to_second", outageTo);
        ArrayNode perSecond = root.putArray("seconds");
        for (int s = 0; s < seconds; s++) {
            ObjectNode row = perSecond.addObject().put("second", s).put("phase", phase(s));
            row.putObject("cached").put("hit", count(true, Kind.HIT, s, s + 1))
                    .put("stale", count(true, Kind.STALE, s, s + 1))
                    .put("generated", count(true, Kind.GENERATED, s, s + 1))
                    .put("errors", count(true, Kind.ERROR, s, s + 1));
            row.putObject("uncached").put("generated", count(false, Kind.GENERATED, s, s + 1))
                    .put("errors", count(false, Kind.ERROR, s, s + 1));
        }
        root.put("cached_errors", cachedErrors());
        ObjectNode errors = root.putObject("outage_errors_uncached");
        outageErrors().forEach(errors::put);
        root.putObject("after_restart").put("sim_calls", simCalls).put("new_prompt_calls", newPromptCalls())
                .put("stale_entry_calls", staleEntryCalls()).put("entries_refreshed", refreshedEntries())
                .put("most_calls_for_one_entry", mostCallsForOneEntry()).put("one_call_each", oneEach());
        return root;
    }

    @Override
    public String failure() {
        if (cachedErrors() > 0) {
            return cachedErrors() + " request(s) for an entry within its stale window got an error";
        }
        if (!oneEach()) {
            return "after the restart the stale entries were not refreshed by one call each: " + staleEntryCalls()
                    + " call(s) for " + refreshedEntries() + " entries, at most " + mostCallsForOneEntry()
                    + " led for one";
        }
        return null;
    }
}
