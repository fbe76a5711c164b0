package io.cachegate.config;

import java.util.AbstractList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.RandomAccess;

/**
 * An immutable tenant list that also indexes tenants by API key. It lets {@link Policy} stay a
 * plain record (no extra fields allowed) while authentication is a map lookup, not a scan.
 */
final class TenantIndex extends AbstractList<Tenant> implements RandomAccess {

    private final List<Tenant> tenants;
    private final Map<String, Tenant> byApiKey;

    private TenantIndex(List<Tenant> tenants) {
        this.tenants = List.copyOf(tenants);
        Map<String, Tenant> index = new HashMap<>();
        for (Tenant tenant : this.tenants) {
            for (String key : tenant.apiKeys()) {
                Tenant previous = index.putIfAbsent(key, tenant);
                if (previous != null && previous != tenant) {
                    // Never guess which tenant a request belongs to; the loader reports this with a line.
                    throw new IllegalArgumentException(
                            "tenants " + previous.id() + " and " + tenant.id() + " share an API key");
                }
            }
        }
        this.byApiKey = Map.copyOf(index);
    }

    static TenantIndex of(List<Tenant> tenants) {
        return tenants instanceof TenantIndex index ? index : new TenantIndex(tenants);
    }

    Optional<Tenant> byApiKey(String apiKey) {
        return apiKey == null ? Optional.empty() : Optional.ofNullable(byApiKey.get(apiKey));
    }

    @Override
    public Tenant get(int index) {
        return tenants.get(index);
    }

    @Override
    public int size() {
        return tenants.size();
    }
}
