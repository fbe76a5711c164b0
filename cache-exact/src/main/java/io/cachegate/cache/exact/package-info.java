/**
 * The exact-match cache: cache keys built from tenant, model version, context hash and a
 * canonical form of the request (see {@code CANONICAL_FORM.md} in this module), whose rules, like
 * everything else that differs between the OpenAI APIs, live in one
 * {@link io.cachegate.cache.exact.Dialect} per API; entries; and the
 * stores behind the {@link io.cachegate.cache.exact.CacheStore} interface (in-process Caffeine,
 * Redis through Lettuce, and the two tiered). Plain Java: no Netty types, testable with an
 * injected clock.
 */
package io.cachegate.cache.exact;
