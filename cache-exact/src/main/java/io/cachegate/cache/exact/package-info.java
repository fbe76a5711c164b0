/**
 * The exact-match cache (to come): cache keys built from tenant, model version, context hash and a
 * canonical form of the request; an {@code ExactCache} with an in-process (Caffeine) tier and a Redis
 * (Lettuce) tier, TTLs, tags and purge. Plain Java: no Netty types, testable with an injected clock.
 */
package io.cachegate.cache.exact;
