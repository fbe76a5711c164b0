/**
 * The exact-cache stage: a store lookup by key, a hit answered, a failing store bypassed (fail open), and entries past
 * their TTL: answered at once while one background request refreshes them ({@code stale_while_revalidate}), or kept
 * to stand in for a failed call ({@code stale_if_error}).
 */
package io.cachegate.gateway.cache.exact;
