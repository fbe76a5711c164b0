package io.cachegate.admission;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides a request's traffic class, first match wins: the client's {@code X-Priority} header when it
 * names a known class the tenant may use (any class when no tenants are configured), else the route's
 * class, else the tenant's default, else the policy default. Header names are trimmed and compared
 * ignoring case. A pure function of its inputs; thread-safe.
 */
public final class ClassResolver {

    /** The request header a client names its class in. */
    public static final String HEADER = "X-Priority";

    private final Map<String, String> byLowerName = new HashMap<>();
    private final String defaultClass;

    /** @param defaultClass the class when nothing else applies; must be one of {@code classNames} */
    public ClassResolver(List<String> classNames, String defaultClass) {
        for (String name : classNames) {
            byLowerName.put(name.toLowerCase(Locale.ROOT), name);
        }
        this.defaultClass = Objects.requireNonNull(defaultClass, "defaultClass");
        if (!byLowerName.containsValue(defaultClass)) {
            throw new IllegalArgumentException("defaultClass " + defaultClass + " is not one of " + classNames);
        }
    }

    /**
     * @param header the {@code X-Priority} value, if sent
     * @param tenant the caller's rights; empty when the policy declares no tenants
     * @param routeClass the class the matched route sets, if any
     */
    public String resolve(Optional<String> header, Optional<TenantClasses> tenant, Optional<String> routeClass) {
        Optional<String> asked = header.map(h -> byLowerName.get(h.trim().toLowerCase(Locale.ROOT)));
        if (asked.isPresent() && tenant.map(t -> t.mayUse(asked.get())).orElse(true)) {
            return asked.get();
        }
        if (routeClass.isPresent() && byLowerName.containsValue(routeClass.get())) {
            return routeClass.get();
        }
        Optional<String> tenantDefault = tenant.flatMap(TenantClasses::defaultClass);
        if (tenantDefault.isPresent() && byLowerName.containsValue(tenantDefault.get())) {
            return tenantDefault.get();
        }
        return defaultClass;
    }
}
