/**
 * The admin listener (its own port, loopback by default): health, readiness, Prometheus metrics,
 * and token-protected stats; plus the backend health probes that readiness reads.
 */
package io.cachegate.gateway.admin;
