package io.cachegate.gateway.cache;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.semantic.ReadableLabels;
import io.cachegate.gateway.exchange.Exchange;
import java.util.Set;

/**
 * Who a request is, as the cache sees it: the access labels it declared ({@code X-Cache-Labels}, written onto the
 * entries its answer creates), the labels its API key holds now (an entry is served only when they include every
 * label of the entry), and the digest of its end user (recorded on entries, for purge by user). Without API keys
 * nobody holds labels and nothing is checked: {@code enforced} is false.
 *
 * @param declared labels the request declared, all held by its key when {@code enforced}
 * @param held labels the key holds, read from the policy on this request (a reload takes effect at once)
 * @param userDigest {@link io.cachegate.cache.exact.UserDigest} of the request's end user, "" for none
 */
public record EntryAccess(Set<String> declared, Set<String> held, boolean enforced, String userDigest) {

    public static final Exchange.Key<EntryAccess> KEY = Exchange.Key.named("entry-access");

    public EntryAccess {
        declared = Set.copyOf(declared);
        held = Set.copyOf(held);
    }

    /** What {@link AccessLabelsStage} left on {@code x}; without it, the key's labels, enforced and nothing declared. */
    public static EntryAccess of(Exchange x) {
        EntryAccess access = x.get(KEY);
        return access != null ? access : new EntryAccess(Set.of(), Set.copyOf(x.keyLabels()), true, "");
    }

    /** True when this request may be served {@code entry}: its key holds every label of the entry. */
    public boolean mayRead(CacheEntry entry) {
        return !enforced || entry.readableWith(held);
    }

    /** The same rule as a filter the vector index applies inside its search. */
    public ReadableLabels readable() {
        return enforced ? ReadableLabels.holding(held) : ReadableLabels.any();
    }
}
