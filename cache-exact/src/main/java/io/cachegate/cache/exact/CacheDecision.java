package io.cachegate.cache.exact;

import java.util.Objects;

/**
 * What the exact cache may do for one request: look the answer up, store a fresh answer, and the
 * reason when either is off.
 */
public record CacheDecision(boolean read, boolean write, BypassReason reason) {

    /** Read and write. */
    public static final CacheDecision USE = new CacheDecision(true, true, BypassReason.NONE);

    public CacheDecision {
        Objects.requireNonNull(reason, "reason");
    }

    /** Neither read nor write, for {@code reason}. */
    public static CacheDecision bypass(BypassReason reason) {
        return new CacheDecision(false, false, reason);
    }

    /** True when the cache takes no part at all ({@code X-Cache: BYPASS}). */
    public boolean bypassed() {
        return !read && !write;
    }
}
