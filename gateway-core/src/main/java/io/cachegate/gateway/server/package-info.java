/**
 * The proxy listener: its pipeline (HTTP codec, decode failures, bounded body aggregation), the handler that turns
 * each request into an exchange and starts the stage chain, and the services the listeners share.
 */
package io.cachegate.gateway.server;
