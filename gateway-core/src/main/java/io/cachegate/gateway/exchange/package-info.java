/**
 * The request path's contract: one {@link io.cachegate.gateway.exchange.Exchange} per request (what the stages
 * learned, its {@link io.cachegate.gateway.exchange.Answer} with the taps and headers on it, its replica lease, its
 * completion recorded once) taken through an ordered {@link io.cachegate.gateway.exchange.StageChain} of
 * {@link io.cachegate.gateway.exchange.Stage}s, plus the headers and error answers every stage shares. Every answer
 * of an exchange leaves through its {@code Answer}. Depends on no stage package.
 */
package io.cachegate.gateway.exchange;
