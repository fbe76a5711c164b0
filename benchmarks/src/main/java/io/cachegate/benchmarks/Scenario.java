package io.cachegate.benchmarks;

import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LoadGenerator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The skeleton of every {@code bench} scenario: check the options (every problem named at once), start the
 * child processes, warm them up and measure in rounds whose order alternates, then print the report on
 * stdout as a table or as JSON. Children are stopped and their temp dir deleted however the run ends.
 */
abstract class Scenario implements Callable<Integer> {

    @Mixin
    final ScenarioOptions options;

    /** The name in progress lines and log files, e.g. {@code overload}. */
    final Progress progress;

    private final String name;

    @Spec
    private CommandSpec spec;

    @ParentCommand
    private BenchCommand bench;

    Scenario(String name, ScenarioOptions defaults) {
        this.name = name;
        this.options = defaults;
        this.progress = new Progress(name);
    }

    /** Adds a problem of the scenario's own options to {@code problems} for each one at fault. */
    void check(List<String> problems) {
    }

    /** Sets up the children, warms them up, measures; the report. */
    abstract ScenarioReport measure(BenchChildren children) throws Exception;

    @Override
    public final Integer call() throws Exception {
        List<String> problems = new ArrayList<>();
        options.check(problems);
        check(problems);
        if (!problems.isEmpty()) {
            throw new ParameterException(spec.commandLine(), String.join("; ", problems));
        }
        ScenarioReport report;
        try (BenchChildren children = new BenchChildren(name, bench.launcher(), options.childJvmOpts())) {
            report = measure(children);
        } catch (Aborted e) {
            System.err.println("FAILED: " + e.getMessage());
            return 1;
        }
        System.out.print(options.json() ? report.toJson() + System.lineSeparator() : report.toText());
        System.out.flush();
        String failure = report.failure();
        if (failure != null) {
            System.err.println("FAILED: " + failure);
        }
        return failure == null ? 0 : 1;
    }

    /**
     * Runs {@code step} on every target in each of {@code --rounds} rounds, the order rotating by one a round
     * so that drift on the shared machine falls on all alike; the results by target, in round order.
     */
    final <T, R> Map<T, List<R>> alternating(List<T> targets, Step<T, R> step) throws Exception {
        Map<T, List<R>> out = new LinkedHashMap<>();
        targets.forEach(t -> out.put(t, new ArrayList<>()));
        for (int r = 0; r < options.rounds(); r++) {
            for (T t : rotated(targets, r)) {
                out.get(t).add(step.run(r + 1, t));
            }
        }
        return out;
    }

    /**
     * One phase of the load generator against {@code load}'s target, announced on stderr, with a progress line
     * a second: recorded for {@code recorded} after an unrecorded {@code ramp}, requests timing out after 10 s.
     */
    final BenchReport phase(String label, BenchOptions.Builder load, Duration recorded, Duration ramp)
            throws InterruptedException {
        progress.phase(label);
        return LoadGenerator.run(load.duration(recorded).warmup(ramp).progress(true)
                .requestTimeout(Duration.ofSeconds(10)).build());
    }

    /** {@code items} starting at index {@code by} (modulo the size). */
    static <T> List<T> rotated(List<T> items, int by) {
        List<T> out = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            out.add(items.get((i + by) % items.size()));
        }
        return out;
    }

    /** One target measured in one round (numbered from 1). */
    @FunctionalInterface
    interface Step<T, R> {
        R run(int round, T target) throws Exception;
    }

    /** A run that cannot go on (a failed check): the reason goes to stderr, the exit status is 1, no report. */
    static final class Aborted extends Exception {

        Aborted(String reason) {
            super(reason);
        }
    }
}
