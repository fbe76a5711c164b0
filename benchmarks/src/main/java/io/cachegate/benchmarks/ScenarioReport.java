package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;

/** What a scenario measured, printed as a table for people or as JSON ({@code --json}) for scripts. */
interface ScenarioReport {

    String toText();

    /** The figures as a JSON tree, built with Jackson. */
    JsonNode json();

    /** Why the run counts as failed (exit status 1), or {@code null} when it passed. */
    String failure();

    /** {@link #json()} as indented text. */
    default String toJson() {
        return BenchJson.pretty(json());
    }
}
