package io.cachegate.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.config.Backend;
import io.cachegate.config.HealthSettings;
import io.cachegate.gateway.dispatch.Backends;
import io.cachegate.gateway.upstream.UpstreamSettings;
import io.cachegate.routing.ReplicaSet;
import io.cachegate.routing.VllmMetrics;
import java.nio.charset.StandardCharsets;
import io.cachegate.gateway.server.ProxyServices;
import io.cachegate.gateway.upstream.BackendProbe;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Probes every backend URL at a fixed interval: {@code GET /v1/models} for the model versions the replicas
 * report (and, by default, their health), the backend's own health path when it names one, and vLLM's
 * {@code /metrics} when asked. Results feed the replicas' circuit breakers (a failed probe ejects a replica,
 * a passing one closes a half-open breaker) and readiness.
 */
public final class BackendHealth implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The last probe of one URL. */
    public record UrlState(boolean reachable, long checkedAtMillis) {
    }

    private final ProxyServices services;
    private final Backends backends;
    private final ModelVersions modelVersions;
    private final EventLoopGroup group;
    private final long intervalMillis;
    private final Map<URI, UrlState> states = new ConcurrentHashMap<>();
    private ScheduledFuture<?> task;

    public BackendHealth(ProxyServices services, Backends backends, ModelVersions modelVersions, EventLoopGroup group,
                         long intervalMillis) {
        this.services = services;
        this.backends = backends;
        this.modelVersions = modelVersions;
        this.group = group;
        this.intervalMillis = intervalMillis;
    }

    /** Starts from {@code previous}'s probe results for the URLs both know (a reload keeps readiness as it was). */
    public void seed(BackendHealth previous) {
        for (Backend backend : services.policy().backends()) {
            for (URI url : backend.urls()) {
                UrlState state = previous.states.get(url);
                if (state != null) {
                    states.put(url, state);
                }
            }
        }
    }

    public void start() {
        task = group.next().scheduleWithFixedDelay(this::probeAll, 0, intervalMillis, TimeUnit.MILLISECONDS);
    }

    private void probeAll() {
        for (Backend backend : services.policy().backends()) {
            for (URI url : backend.urls()) {
                // An upstream call must start on the event loop it runs on (it is confined to it).
                EventLoop loop = group.next();
                loop.execute(() -> probe(loop, backend, url));
            }
        }
    }

    /**
     * The model list gives the model versions and, by default, the health; a backend may name another health
     * path, and may have its vLLM {@code /metrics} read as a load signal.
     */
    private void probe(EventLoop loop, Backend backend, URI url) {
        ReplicaSet replicas = backends.get(backend.name()).replicas();
        UpstreamSettings settings = backends.get(backend.name()).upstream();
        boolean modelsAreHealth = backend.health().path().equals(HealthSettings.DEFAULT_PATH);
        BackendProbe.fetchModels(services.upstream(), loop, url, settings, backend.apiKey(), result -> {
            boolean ok = result.ok();
            if (modelsAreHealth) {
                health(replicas, url, ok);
            }
            recordModels(backend.name(), url, ok ? result.body() : null);
        });
        if (!modelsAreHealth) {
            BackendProbe.get(services.upstream(), loop, url, backend.health().path(), settings, backend.apiKey(),
                    result -> health(replicas, url, result.ok()));
        }
        if (backend.metrics()) {
            BackendProbe.get(services.upstream(), loop, url, "/metrics", settings, backend.apiKey(), result -> {
                if (result.ok()) {
                    VllmMetrics.parse(new String(result.body(), StandardCharsets.UTF_8)).ifPresent(load ->
                            replicas.recordExternalLoad(url, load.waiting(), load.kvCacheUsage()));
                }
            });
        }
    }

    private void health(ReplicaSet replicas, URI url, boolean ok) {
        replicas.recordProbe(url, ok);
        states.put(url, new UrlState(ok, services.ticker().wallMillis()));
    }

    /** The model list is where model versions are discovered; an unreadable one counts as none. */
    private void recordModels(String backend, URI url, byte[] body) {
        JsonNode list = null;
        if (body != null) {
            try {
                list = JSON.readTree(body);
            } catch (IOException e) {
                list = null;
            }
        }
        if (list != null && list.path("data").isArray()) {
            modelVersions.update(backend, url, list);
        } else {
            modelVersions.forget(backend, url);
        }
    }

    public Backends backends() {
        return backends;
    }

    /** Ready when every backend has at least one URL whose last probe succeeded. */
    public boolean ready() {
        for (Backend backend : services.policy().backends()) {
            boolean any = false;
            for (URI url : backend.urls()) {
                UrlState s = states.get(url);
                any |= s != null && s.reachable();
            }
            if (!any) {
                return false;
            }
        }
        return true;
    }

    /** Backend name to URL to reachable (absent until probed), in policy order. */
    public Map<String, Map<String, Boolean>> snapshot() {
        Map<String, Map<String, Boolean>> out = new LinkedHashMap<>();
        for (Backend backend : services.policy().backends()) {
            Map<String, Boolean> urls = new LinkedHashMap<>();
            for (URI url : backend.urls()) {
                UrlState s = states.get(url);
                urls.put(url.toString(), s != null && s.reachable());
            }
            out.put(backend.name(), urls);
        }
        return out;
    }

    @Override
    public void close() {
        if (task != null) {
            task.cancel(false);
        }
    }
}
