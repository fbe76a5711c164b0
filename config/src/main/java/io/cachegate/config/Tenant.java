package io.cachegate.config;

import java.util.List;
import java.util.Objects;

/** A client of the gateway, identified by any of its API keys; its id scopes cache entries. */
public record Tenant(String id, List<String> apiKeys) {

    public Tenant {
        Objects.requireNonNull(id, "id");
        apiKeys = List.copyOf(apiKeys);
    }

    @Override
    public String toString() {
        // Keys are secrets: say how many, never which.
        return "Tenant[id=" + id + ", apiKeys=" + apiKeys.size() + " key(s)]";
    }
}
