package io.cachegate.gateway.server;

import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.api.ErrorKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes request bodies hold while they arrive, counted against a budget for all of them
 * ({@code server.max_buffered_body_bytes}) and one per tenant ({@code server.max_buffered_body_bytes_per_tenant}).
 * Without them a valid key could open connections and send each body but its last byte, and the gateway held
 * every one for {@code body_timeout}. A charge that would pass a budget is refused whole, nothing charged: 429
 * for the tenant over its share, 503 when the gateway's budget is spent. Shared by every connection and policy
 * generation; the limits are the current policy's, passed with each charge. Thread-safe.
 */
public final class BodyBudget {

    /** What {@code auto} gives the whole budget at most: well below the heap of the smallest deployment. */
    static final long AUTO_CAP = 128L << 20;

    private final AtomicLong total = new AtomicLong();
    private final ConcurrentMap<String, Long> byTenant = new ConcurrentHashMap<>();
    private final long autoTotal;
    private final Counter refusedTenant;
    private final Counter refusedGlobal;

    /** With {@code auto} budgets worked out from {@code maxHeap}, the JVM's, where the bodies are kept. */
    public BodyBudget(MeterRegistry registry, long maxHeap) {
        this.autoTotal = Math.max(1, Math.min(AUTO_CAP, maxHeap / 8));
        Gauge.builder("cachegate.body.buffered", total, AtomicLong::get).baseUnit("bytes")
                .description("Request body bytes held by bodies still arriving (server.max_buffered_body_bytes)")
                .register(registry);
        this.refusedTenant = refused(registry, "tenant");
        this.refusedGlobal = refused(registry, "global");
    }

    private static Counter refused(MeterRegistry registry, String scope) {
        return Counter.builder("cachegate.body.budget.refused")
                .description("Requests refused because their body would pass a buffered-body budget "
                        + "(tenant: 429, global: 503)")
                .tag("scope", scope).register(registry);
    }

    /** The whole budget under {@code limits}. */
    long totalLimit(ServerSettings.Connections limits) {
        return limits.maxBufferedBodyBytes().orElse(autoTotal);
    }

    /** One tenant's budget under {@code limits}: a quarter of the whole unless set. */
    long tenantLimit(ServerSettings.Connections limits) {
        return limits.maxBufferedBodyBytesPerTenant().orElse(Math.max(1, totalLimit(limits) / 4));
    }

    /**
     * Charges {@code bytes} to {@code tenant} and the whole; null when both budgets hold them, else the refusal
     * ({@link ErrorKind#BODY_BUDGET_TENANT} or {@link ErrorKind#BODY_BUDGET_GLOBAL}) with nothing charged.
     */
    ErrorKind charge(String tenant, long bytes, ServerSettings.Connections limits) {
        if (bytes <= 0) {
            return null;
        }
        long tenantMax = tenantLimit(limits);
        boolean[] over = new boolean[1];
        byTenant.compute(tenant, (t, held) -> {
            long now = held == null ? 0 : held;
            if (now + bytes > tenantMax) {
                over[0] = true;
                return held;
            }
            return now + bytes;
        });
        if (over[0]) {
            refusedTenant.increment();
            return ErrorKind.BODY_BUDGET_TENANT;
        }
        long totalMax = totalLimit(limits);
        while (true) {
            long now = total.get();
            if (now + bytes > totalMax) {
                releaseTenant(tenant, bytes);
                refusedGlobal.increment();
                return ErrorKind.BODY_BUDGET_GLOBAL;
            }
            if (total.compareAndSet(now, now + bytes)) {
                return null;
            }
        }
    }

    /** Gives back {@code bytes} an earlier {@link #charge} took for {@code tenant}. */
    void release(String tenant, long bytes) {
        if (bytes <= 0) {
            return;
        }
        total.addAndGet(-bytes);
        releaseTenant(tenant, bytes);
    }

    private void releaseTenant(String tenant, long bytes) {
        byTenant.computeIfPresent(tenant, (t, held) -> held - bytes <= 0 ? null : held - bytes);
    }

    /** Bytes held now by every body still arriving. */
    public long buffered() {
        return total.get();
    }

    /** Bytes held now by {@code tenant}'s bodies still arriving. */
    public long buffered(String tenant) {
        return byTenant.getOrDefault(tenant, 0L);
    }
}
