package io.cachegate.config;

import java.util.AbstractList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.RandomAccess;

/**
 * An immutable tenant list that also indexes tenants by the SHA-256 digest of each API key (never the
 * key itself). It lets {@link Policy} stay a plain record (no extra fields allowed) while authentication
 * is one hash and a map lookup, not a scan; the digest found is then compared in constant time.
 */
final class TenantIndex extends AbstractList<Tenant> implements RandomAccess {

    private final List<Tenant> tenants;
    private final Map<String, Credential> byDigest;
    private final Map<String, Tenant> byCertificate;

    private TenantIndex(List<Tenant> tenants) {
        this.tenants = List.copyOf(tenants);
        Map<String, Credential> index = new HashMap<>();
        for (Tenant tenant : this.tenants) {
            for (ApiKey key : tenant.apiKeys()) {
                Credential previous = index.putIfAbsent(key.hex(), new Credential(tenant, key));
                if (previous != null && previous.tenant() != tenant) {
                    // Never guess which tenant a request belongs to; the loader reports this with a line.
                    throw new IllegalArgumentException(
                            "tenants " + previous.tenant().id() + " and " + tenant.id() + " share an API key");
                }
            }
        }
        this.byDigest = Map.copyOf(index);
        Map<String, Tenant> certificates = new HashMap<>();
        for (Tenant tenant : this.tenants) {
            for (String fingerprint : tenant.clientCertificates()) {
                Tenant previous = certificates.putIfAbsent(fingerprint, tenant);
                if (previous != null && previous != tenant) {
                    throw new IllegalArgumentException(
                            "tenants " + previous.id() + " and " + tenant.id() + " share a client certificate");
                }
            }
        }
        this.byCertificate = Map.copyOf(certificates);
    }

    static TenantIndex of(List<Tenant> tenants) {
        return tenants instanceof TenantIndex index ? index : new TenantIndex(tenants);
    }

    /** The tenant and key matching a presented key, if any. */
    Optional<Credential> byApiKey(String presented) {
        if (presented == null) {
            return Optional.empty();
        }
        byte[] digest = ApiKey.digest(presented);
        Credential found = byDigest.get(HexFormat.of().formatHex(digest));
        return found != null && found.key().matches(digest) ? Optional.of(found) : Optional.empty();
    }

    /** The tenant a client certificate (by its SHA-256 fingerprint, lower-case hex) authenticates, if any. */
    Optional<Tenant> byCertificate(String fingerprint) {
        return fingerprint == null ? Optional.empty() : Optional.ofNullable(byCertificate.get(fingerprint));
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
