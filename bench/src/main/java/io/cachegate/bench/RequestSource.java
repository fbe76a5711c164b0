package io.cachegate.bench;

/**
 * Supplies the requests a run sends. Implementations must be thread-safe: the generator calls
 * {@link #next()} from every event loop it runs on, as each request is created.
 */
@FunctionalInterface
public interface RequestSource {

    /** The next request to send; never {@code null}. */
    BenchRequest next();
}
