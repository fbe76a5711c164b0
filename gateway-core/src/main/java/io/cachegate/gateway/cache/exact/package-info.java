/** The exact-cache stage: a store lookup by key, a hit answered, a failing store bypassed (fail open). */
package io.cachegate.gateway.cache.exact;
