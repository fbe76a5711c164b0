/**
 * The YAML policy: immutable records describing server, backends, tenants, traffic classes, cache,
 * routes and admission, plus {@link io.cachegate.config.PolicyLoader} which reads, substitutes {@code ${ENV}}
 * values and validates a policy file, reporting every problem with its file, line and YAML path.
 *
 * <p>Every key is defined once, with its type, default, range and description, in the {@code *Keys} class
 * of its section ({@code ServerKeys}, {@code BackendKeys}, ...): the section readers read through those
 * definitions, the records take their defaults from them, and a test holds {@code example-policy.yaml} to them.
 * Each key's reload rule (live, or kept until a restart) is part of its definition too, and
 * {@link io.cachegate.config.PolicyReload} derives what a reload applies from those rules.
 *
 * <p>Records are built once per load and never change, so the hot path reads no half-updated policy; a reload
 * builds new ones. {@link io.cachegate.config.RouteTable} precompiles route matching for it.
 */
package io.cachegate.config;
