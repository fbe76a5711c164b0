package io.cachegate.benchmarks;

import java.net.URI;
import java.util.Map;

/**
 * One thing {@code bench compare} measures: a name ({@code cachegate-memory}, {@code nginx-cache}, ...), what
 * it does with the request, where it listens, the headers the request needs there (Portkey's routing headers),
 * the answer header that says hit or miss (null when it has none), and the process that answers there, with its
 * descendants, for the CPU a request costs (null when not known: then no CPU figure).
 */
record CompareTarget(String name, Kind kind, URI uri, Map<String, String> headers, String hitHeader,
                     ProcessHandle server) {

    /** What the target does with the one chat request of the run. */
    enum Kind {
        /** Answers from its cache (the request was cached before the measurement). */
        HIT,
        /** Forwards every request to the simulator. */
        PROXY,
        /** Answers the same bytes from its configuration: no lookup, no upstream. */
        CEILING
    }

    CompareTarget {
        headers = Map.copyOf(headers);
    }

    /** The family of products it belongs to: the part of the name before the first {@code -}. */
    String family() {
        int dash = name.indexOf('-');
        return dash < 0 ? name : name.substring(0, dash);
    }
}
