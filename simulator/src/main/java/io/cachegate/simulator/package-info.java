/**
 * An OpenAI-compatible backend simulator on Netty that speaks vLLM's wire format.
 *
 * <p>It is the backend of the gateway's tests, the demo and the latency benchmarks: answers are
 * deterministic (derived from a hash of the request), latency follows a simple model (time to first
 * token, shortened by prefix-cache hits, plus time per output token, slowed when running sequences
 * share a throughput limit), concurrency is bounded like a real replica's, faults (errors, hangs)
 * can be injected, {@code /metrics} shows the vLLM gauges a load-aware router reads, and a model's card
 * in {@code /v1/models} can be changed while running (a model swap). Several independent replicas can
 * run side by side. With KV-cache events on, a replica's prefix cache counts token blocks (a HuggingFace
 * tokenizer) and publishes vLLM's KV-cache events on ZeroMQ (the {@code KvEvent*} classes), the truth a
 * KV-aware router is measured against. Only {@link io.cachegate.simulator.BackendSimulator},
 * {@link io.cachegate.simulator.SimulatorReplicas}, {@link io.cachegate.simulator.SimulatorOptions},
 * {@link io.cachegate.simulator.SimulatorStats} and {@link io.cachegate.simulator.ModelCard} are public;
 * everything else is an implementation detail.
 */
package io.cachegate.simulator;
