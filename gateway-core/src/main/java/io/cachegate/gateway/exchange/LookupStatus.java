package io.cachegate.gateway.exchange;

import java.util.Locale;

/**
 * How one cache layer's lookup went for a request, as Envoy's cache filter names it: the {@code outcome} of
 * {@code cachegate_cache_lookups_total}. A layer that never looked keeps none.
 */
public enum LookupStatus {
    /** Found and answered from. */
    HIT,
    /** Looked and found nothing servable. */
    MISS,
    /**
     * Found past its TTL, within the stale window, and answered from because the backend could not answer
     * ({@code stale_if_error}); an entry past its TTL the backend replaced is a {@link #MISS}.
     */
    STALE,
    /** Not looked in on purpose: the request is not cacheable ({@link ExchangeRecord#bypass()} says why). */
    BYPASS,
    /** The layer failed (store down or slow, the embedder or index failed): failed open. */
    ERROR,
    /** The semantic layer cannot match this request by meaning (no text, too long, sensitive). */
    INELIGIBLE;

    private final String tag = name().toLowerCase(Locale.ROOT);

    /** The metric tag value, e.g. {@code miss}. */
    public String tag() {
        return tag;
    }
}
