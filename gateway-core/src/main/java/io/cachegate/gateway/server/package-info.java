/**
 * The proxy listener: its pipeline (HTTP codec, decode failures, bounded body aggregation) and the
 * handler that authenticates, validates and routes each request before an exchange answers it.
 */
package io.cachegate.gateway.server;
