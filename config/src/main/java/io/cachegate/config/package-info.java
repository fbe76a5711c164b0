/**
 * The YAML policy: immutable records describing server, backends, tenants, traffic classes, cache,
 * routes and admission, plus {@link io.cachegate.config.PolicyLoader} which reads, substitutes {@code ${ENV}}
 * values and validates a policy file, reporting every problem with its file, line and YAML path.
 *
 * <p>Records are built once per load and swapped whole on reload, so the hot path never sees a
 * half-updated policy. {@link io.cachegate.config.RouteTable} precompiles route matching for it.
 */
package io.cachegate.config;
