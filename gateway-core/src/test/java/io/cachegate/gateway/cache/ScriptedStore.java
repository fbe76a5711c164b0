package io.cachegate.gateway.cache;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.exact.MemoryCacheStore;
import io.cachegate.cache.exact.PurgeScope;
import io.cachegate.config.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * An in-process store whose failures and delays a test scripts: lookups that fail (the store is down) or wait for
 * the test to answer them, writes held until the test lets them land. Counts lookups and writes.
 */
public final class ScriptedStore implements CacheStore {

    private final MemoryCacheStore memory;
    private final List<CompletableFuture<Optional<CacheEntry>>> waitingGets = new ArrayList<>();
    private final List<Runnable> heldPuts = new ArrayList<>();
    private RuntimeException getFailure;
    private boolean deferGets;
    private boolean holdPuts;
    private int gets;
    private int puts;

    public ScriptedStore(Ticker ticker) {
        this.memory = new MemoryCacheStore(64L << 20, ticker);
    }

    /** Every lookup from now on fails with {@code failure}. */
    public ScriptedStore failGets(RuntimeException failure) {
        this.getFailure = failure;
        return this;
    }

    /** Lookups from now on wait until the test answers them ({@link #waitingGet}). */
    public ScriptedStore deferGets() {
        this.deferGets = true;
        return this;
    }

    /** Writes from now on land only on {@link #landPuts()}. */
    public ScriptedStore holdPuts() {
        this.holdPuts = true;
        return this;
    }

    /** The {@code i}-th lookup still waiting for the test. */
    public CompletableFuture<Optional<CacheEntry>> waitingGet(int i) {
        return waitingGets.get(i);
    }

    /** Lets the held writes land, in order. */
    public void landPuts() {
        List<Runnable> held = List.copyOf(heldPuts);
        heldPuts.clear();
        held.forEach(Runnable::run);
    }

    public int gets() {
        return gets;
    }

    public int puts() {
        return puts;
    }

    /** What the store holds under {@code key}, read without counting a lookup. */
    public Optional<CacheEntry> stored(CacheKey key) {
        return memory.get(key).join();
    }

    @Override
    public CompletableFuture<Optional<CacheEntry>> get(CacheKey key) {
        gets++;
        if (getFailure != null) {
            return CompletableFuture.failedFuture(getFailure);
        }
        if (deferGets) {
            CompletableFuture<Optional<CacheEntry>> waiting = new CompletableFuture<>();
            waitingGets.add(waiting);
            return waiting;
        }
        return memory.get(key);
    }

    @Override
    public CompletableFuture<Void> put(CacheKey key, CacheEntry entry, Duration ttl) {
        puts++;
        if (!holdPuts) {
            return memory.put(key, entry, ttl);
        }
        CompletableFuture<Void> landed = new CompletableFuture<>();
        heldPuts.add(() -> memory.put(key, entry, ttl).whenComplete((ok, error) -> landed.complete(null)));
        return landed;
    }

    @Override
    public CompletableFuture<Long> purge(PurgeScope scope) {
        return memory.purge(scope);
    }

    @Override
    public void close() {
        memory.close();
    }
}
