package io.cachegate.gateway.admin;

import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.exact.PurgeScope;
import io.cachegate.gateway.cache.semantic.SemanticCache;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** The caches as the admin API sees them: the exact store and the semantic cache, purged together. */
public final class CacheAdmin {

    private final CacheStore store;
    private final Optional<SemanticCache> semantic;
    private final Runnable onPurge;

    public CacheAdmin(CacheStore store, Optional<SemanticCache> semantic) {
        this(store, semantic, () -> { });
    }

    /** @param onPurge runs at each purge: answers kept in memory after their write (coalescing) end too */
    public CacheAdmin(CacheStore store, Optional<SemanticCache> semantic, Runnable onPurge) {
        this.store = store;
        this.semantic = semantic;
        this.onPurge = onPurge;
    }

    public CacheStore store() {
        return store;
    }

    public Optional<SemanticCache> semantic() {
        return semantic;
    }

    /**
     * Removes the entries in {@code scope} from the store and their index entries from the semantic cache. The
     * store's purge decides the outcome: an index entry that survives a failed index purge points at nothing and
     * is a miss when found.
     */
    public CompletableFuture<Purged> purge(PurgeScope scope) {
        onPurge.run();
        CompletableFuture<Long> indexPurge = semantic.isEmpty() ? CompletableFuture.completedFuture(0L)
                : semantic.get().purge(scope).handle((count, error) -> error == null ? count : -1L);
        return store.purge(scope).thenCombine(indexPurge, Purged::new).whenComplete((purged, error) -> onPurge.run());
    }

    /** What a purge removed; {@code semantic} is -1 when the index could not be purged. */
    public record Purged(long exact, long semantic) {
    }
}
