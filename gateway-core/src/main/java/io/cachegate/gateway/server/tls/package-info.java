/**
 * TLS on the proxy and admin listeners: {@link io.cachegate.gateway.server.tls.TlsContexts} builds a Netty
 * {@code SslContext} (JDK provider) from the policy's PEM files and checks the pair first,
 * {@link io.cachegate.gateway.server.tls.ListenerTls} re-reads them when they change and swaps the context for new
 * connections, and {@link io.cachegate.gateway.server.tls.ClientCertificates} names the client certificate a
 * connection presented, for authentication.
 */
package io.cachegate.gateway.server.tls;
