package io.cachegate.config;

import java.util.Objects;

/** The tenant and the key a presented API key matched: who is asking, and which labels their key holds. */
public record Credential(Tenant tenant, ApiKey key) {

    public Credential {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(key, "key");
    }
}
