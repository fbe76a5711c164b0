/**
 * Relaying a request to a backend and its answer to the client ({@link io.cachegate.gateway.proxy.ProxyExchange}),
 * the headers that cross the proxy, and the answers the gateway writes itself.
 */
package io.cachegate.gateway.proxy;
