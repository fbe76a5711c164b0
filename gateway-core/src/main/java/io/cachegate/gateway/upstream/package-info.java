/**
 * The client side: pooled connections to backend URLs (one capped pool per event loop and URL),
 * one {@link io.cachegate.gateway.upstream.UpstreamCall} per attempt with its timeouts, and a
 * failure taxonomy that says what each failure becomes for the client and whether it may be retried.
 */
package io.cachegate.gateway.upstream;
