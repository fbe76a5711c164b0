package io.cachegate.cache.exact;

import java.util.Locale;

/**
 * Why the cache is not read (or not written) for a request. A bounded set, used as a metric tag
 * ({@link #tag()}); {@link #NONE} when the cache is used normally.
 */
public enum BypassReason {
    /** Read and write as usual. */
    NONE,
    /** The route has {@code cache.exact: false}. */
    ROUTE_DISABLED,
    /** The client sent {@code Cache-Control: no-store}: neither read nor write. */
    NO_STORE,
    /** The client sent {@code Cache-Control: no-cache}: not read, the fresh answer is written. */
    NO_CACHE,
    /** Sampled without a seed (temperature above 0 or omitted) on a route that does not opt in. */
    NONDETERMINISTIC,
    /** More than one choice asked for ({@code n} other than 1) on a route that does not opt in. */
    N_GREATER_THAN_ONE,
    /**
     * A Responses API request continuing state the backend holds ({@code previous_response_id}, ...) on a route
     * without {@code server_state: true}.
     */
    SERVER_STATE,
    /** No model version is known for the route's backend and model yet: keys could not name what generated them. */
    MODEL_VERSION_UNKNOWN,
    /** The backend's replicas report different versions of the model (a rolling deploy, a model swap). */
    MODEL_VERSIONS_DISAGREE,
    /** The request holds personal data or a secret and {@code cache.sensitive} keeps it out of the cache. */
    SENSITIVE,
    /** The store failed the lookup of an embeddings batch cached per item: the backend answers it unchanged. */
    STORE_UNAVAILABLE;

    /** The metric tag value, e.g. {@code no_store}. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
