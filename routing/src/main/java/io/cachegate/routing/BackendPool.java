package io.cachegate.routing;

import io.cachegate.config.Backend;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The URLs (replicas) of one backend and the choice among them: round robin over the URLs last
 * seen healthy (over all of them when none is), and another URL for a retry. Thread-safe. For
 * load-aware choice with capacity leases and circuit breaking, see {@link ReplicaSet}.
 */
public final class BackendPool {

    private final Backend backend;
    private final List<URI> urls;
    private final Set<URI> unhealthy = ConcurrentHashMap.newKeySet();
    private final AtomicInteger next = new AtomicInteger();

    public BackendPool(Backend backend) {
        this.backend = backend;
        this.urls = List.copyOf(backend.urls());
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("backend " + backend.name() + " has no urls");
        }
    }

    public Backend backend() {
        return backend;
    }

    public List<URI> urls() {
        return urls;
    }

    /** The URL for the next call. */
    public URI pick() {
        int start = Math.floorMod(next.getAndIncrement(), urls.size());
        for (int i = 0; i < urls.size(); i++) {
            URI candidate = urls.get((start + i) % urls.size());
            if (!unhealthy.contains(candidate)) {
                return candidate;
            }
        }
        return urls.get(start);
    }

    /** Another URL than {@code failed} for a retry, preferring healthy ones; empty with a single URL. */
    public Optional<URI> alternativeTo(URI failed) {
        URI fallback = null;
        int start = Math.floorMod(next.getAndIncrement(), urls.size());
        for (int i = 0; i < urls.size(); i++) {
            URI candidate = urls.get((start + i) % urls.size());
            if (candidate.equals(failed)) {
                continue;
            }
            if (!unhealthy.contains(candidate)) {
                return Optional.of(candidate);
            }
            if (fallback == null) {
                fallback = candidate;
            }
        }
        return Optional.ofNullable(fallback);
    }

    /** Records the outcome of a health check (or of a failed connect) for {@code url}. */
    public void markHealthy(URI url, boolean healthy) {
        if (healthy) {
            unhealthy.remove(url);
        } else if (urls.contains(url)) {
            unhealthy.add(url);
        }
    }

    public boolean isHealthy(URI url) {
        return !unhealthy.contains(url);
    }

    /** True when at least one URL is not known to be down. */
    public boolean anyHealthy() {
        return unhealthy.size() < urls.size();
    }
}
