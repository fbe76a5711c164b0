/**
 * What the gateway tells about its requests: the savings, the access and audit log, and the traces, each an
 * {@link io.cachegate.gateway.exchange.ExchangeObserver} fed by the {@link io.cachegate.gateway.exchange.ExchangeRecord}
 * the stages fill in.
 */
package io.cachegate.gateway.telemetry;
