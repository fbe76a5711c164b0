/**
 * The load generator behind {@code cachegate bench} and every benchmark scenario: open- and
 * closed-loop HTTP/1.1 load from a Netty client, requests from a trace or a seeded generator,
 * latency in HdrHistograms (microseconds).
 *
 * <p>The public surface is {@link io.cachegate.bench.LoadGenerator}, its options, request sources
 * and report; the event-loop machinery ({@code Worker}, {@code ClientConnection}) is
 * package-private. Open-loop latency counts from each request's intended send time, so a stalled
 * server or generator shows up in the percentiles instead of being omitted.
 */
package io.cachegate.bench;
