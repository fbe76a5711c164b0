package io.cachegate.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Route matching for one {@link Policy}, with globs compiled and named backends looked up once.
 * Immutable and thread-safe; build it when a policy is loaded and swap it with the policy.
 */
public final class RouteTable {

    private final List<Backend> backends;
    private final List<Compiled> routes;

    private RouteTable(Policy policy) {
        this.backends = policy.backends();
        List<Compiled> compiled = new ArrayList<>(policy.routes().size());
        for (Route route : policy.routes()) {
            compiled.add(new Compiled(route,
                    Globs.compile(route.match().model()),
                    Globs.compile(route.match().path()),
                    route.backend().flatMap(policy::backend).orElse(null),
                    route.fallbacks().stream().flatMap(hop -> policy.backend(hop.backend()).stream()).toList()));
        }
        this.routes = List.copyOf(compiled);
    }

    /** Compiles the routes of {@code policy}. */
    public static RouteTable of(Policy policy) {
        return new RouteTable(Objects.requireNonNull(policy, "policy"));
    }

    /**
     * First matching route wins. Backend: the route's {@code backend}, else the first backend whose
     * models glob-match. Empty when no route matches, or when the first matching route has no backend
     * for the model (a later route is not tried: routes are ordered on purpose).
     *
     * @param model the requested model; null (e.g. {@code GET /v1/models}) is matched as ""
     * @param tenantId the authenticated tenant, or null when the policy has no tenants
     */
    public Optional<ResolvedRoute> resolve(String path, String model, String tenantId) {
        String modelName = model == null ? "" : model;
        for (Compiled compiled : routes) {
            if (compiled.matches(path, modelName, tenantId)) {
                return backendFor(compiled, modelName)
                        .map(backend -> new ResolvedRoute(compiled.route(), backend, compiled.fallbacks()));
            }
        }
        return Optional.empty();
    }

    private Optional<Backend> backendFor(Compiled compiled, String model) {
        if (compiled.route().backend().isPresent()) {
            // Null only for a name the policy lacks, which the loader rejects; a hand-built Policy may not.
            return Optional.ofNullable(compiled.named());
        }
        for (Backend backend : backends) {
            if (backend.serves(model)) {
                return Optional.of(backend);
            }
        }
        return Optional.empty();
    }

    /** A route with its matchers; {@code named} is the backend the route names, null if none resolves. */
    private record Compiled(Route route, Predicate<String> model, Predicate<String> path, Backend named,
                            List<Backend> fallbacks) {

        boolean matches(String requestPath, String modelName, String tenantId) {
            Optional<String> tenant = route.match().tenant();
            return (tenant.isEmpty() || tenant.get().equals(tenantId))
                    && model.test(modelName)
                    && path.test(requestPath == null ? "" : requestPath);
        }
    }
}
