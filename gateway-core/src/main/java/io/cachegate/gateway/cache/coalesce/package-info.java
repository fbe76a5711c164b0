/**
 * Coalescing: identical misses in flight share one upstream call; followers read the leader's recorded answer at
 * their own pace and make their own call when the leader fails before its head.
 */
package io.cachegate.gateway.cache.coalesce;
