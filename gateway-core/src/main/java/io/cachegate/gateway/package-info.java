/**
 * The gateway: {@link io.cachegate.gateway.Gateway} starts the proxy and admin listeners for a policy, and
 * {@link io.cachegate.gateway.RequestPath} lists the request path's stages in order. Netty types stay inside
 * this module; the leaf modules (config, caches, routing, admission) know nothing of it.
 */
package io.cachegate.gateway;
