/**
 * An OpenAI-compatible backend simulator on Netty that speaks vLLM's wire format.
 *
 * <p>It is the backend of the gateway's tests, the demo and the latency benchmarks: answers are
 * deterministic (derived from a hash of the request), latency follows a simple model (time to first
 * token plus time per output token), concurrency is bounded like a real replica's, and faults
 * (errors, hangs) can be injected. Only {@link io.cachegate.simulator.BackendSimulator},
 * {@link io.cachegate.simulator.SimulatorOptions} and {@link io.cachegate.simulator.SimulatorStats}
 * are public; everything else is an implementation detail.
 */
package io.cachegate.simulator;
