/**
 * {@code cachegate bench}: the load generator's command and the benchmark scenarios under it (overhead,
 * exact-cache, semantic, overload, prefix-affinity). Every scenario is a {@code Scenario}:
 * the shared options ({@code ScenarioOptions}), its children (simulators and gateways in JVMs of their own,
 * started through a {@link io.cachegate.benchmarks.ChildLauncher} with a {@code GatewayPolicy}), rounds whose
 * order alternates, and a report printed as text or as JSON. Public: {@code BenchCommand} and {@code ChildLauncher}
 * (the cli registers the one and supplies the other), and the stress harness the cli's integration tests share with
 * {@code bench chaos} ({@code StressFleet}, {@code RedisServer}, {@code CpuHogs}, {@code BurstClient}).
 */
package io.cachegate.benchmarks;
