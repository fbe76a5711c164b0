package io.cachegate.config;

import java.util.List;
import java.util.stream.Collectors;

/** A policy that could not be loaded; it carries every problem found, not just the first. */
public final class PolicyException extends Exception {

    private final List<PolicyProblem> problems;

    public PolicyException(List<PolicyProblem> problems) {
        super(problems.stream().map(PolicyProblem::toString).collect(Collectors.joining("\n")));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a PolicyException needs at least one problem");
        }
        this.problems = List.copyOf(problems);
    }

    PolicyException(PolicyProblem problem) {
        this(List.of(problem));
    }

    /** The problems in file order. */
    public List<PolicyProblem> problems() {
        return problems;
    }
}
