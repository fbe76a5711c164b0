/**
 * The choice of Netty transport (native epoll or NIO), kept in one place, and the loan of the event loops to
 * Lettuce so the Redis store answers on the loop that asked ({@link io.cachegate.gateway.transport.LettuceLoops}).
 */
package io.cachegate.gateway.transport;
