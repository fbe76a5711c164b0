/**
 * The proxy listener: its pipeline (connection caps at accept, read timeouts, a strict HTTP codec, the front door
 * that refuses requests that could smuggle or confuse, the head check that refuses what a request head alone
 * decides before its body is read, bounded body aggregation), the handler that turns each request into an
 * exchange and starts the stage chain, and the services the listeners share. HTTP/2 (h2c prior knowledge or
 * upgrade, ALPN h2) replaces the connection's HTTP/1.1 handlers with Netty's HTTP/2 codec and gives each stream
 * the same request stages ({@code Http2Switch}).
 */
package io.cachegate.gateway.server;
