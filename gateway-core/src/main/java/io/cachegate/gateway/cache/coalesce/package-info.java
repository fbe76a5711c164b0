/**
 * Coalescing: identical misses in flight share one upstream call; followers read the leader's recorded answer at
 * their own pace and make their own call when the leader fails before its head. Across gateways sharing a Redis,
 * a lease per key ({@link io.cachegate.cache.exact.FlightLeases}) lets one gateway generate while requests at the
 * others wait, within a bound, for its stored entry ({@code FleetCoalesceStage}, {@code FleetWait}).
 */
package io.cachegate.gateway.cache.coalesce;
