/**
 * JMH micro-benchmarks of the gateway's hot pure functions: the exact cache's canonical form and SHA-256
 * key, its entry codec and SSE replay, and routing's prefix hashes. Compiled by every build (so they never
 * rot), packaged apart as {@code benchmarks/target/benchmarks-jmh.jar}, run only by hand:
 * {@code java -jar benchmarks/target/benchmarks-jmh.jar [JMH options]}.
 */
package io.cachegate.benchmarks.jmh;
