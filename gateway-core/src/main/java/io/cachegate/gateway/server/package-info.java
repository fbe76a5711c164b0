/**
 * The proxy listener: its pipeline (connection caps at accept, read timeouts, a strict HTTP codec, the front door
 * that refuses requests that could smuggle or confuse, the head check that refuses what a request head alone
 * decides before its body is read, bounded body aggregation), the handler that turns each request into an
 * exchange and starts the stage chain, and the services the listeners share.
 */
package io.cachegate.gateway.server;
