package io.cachegate.admission;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The traffic classes a tenant may ask for with {@code X-Priority}, and its default class.
 *
 * @param allowed class names it may request; {@code "*"} allows every class
 */
public record TenantClasses(Set<String> allowed, Optional<String> defaultClass) {

    public static final String ANY = "*";

    public TenantClasses {
        allowed = Set.copyOf(allowed);
        Objects.requireNonNull(defaultClass, "defaultClass");
    }

    public boolean mayUse(String trafficClass) {
        return allowed.contains(ANY) || allowed.contains(trafficClass);
    }
}
