package io.cachegate.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.gateway.proxy.ProxyServices;
import io.cachegate.gateway.upstream.BackendProbe;
import io.cachegate.routing.BackendPool;
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
 * Probes every backend URL with {@code GET /v1/models} at a fixed interval, marks URLs healthy or
 * not in their pools (so new calls avoid dead replicas), records the model versions the replicas
 * report, and answers readiness.
 */
public final class BackendHealth implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The last probe of one URL. */
    public record UrlState(boolean reachable, long checkedAtMillis) {
    }

    private final ProxyServices services;
    private final ModelVersions modelVersions;
    private final EventLoopGroup group;
    private final long intervalMillis;
    private final Map<URI, UrlState> states = new ConcurrentHashMap<>();
    private ScheduledFuture<?> task;

    public BackendHealth(ProxyServices services, ModelVersions modelVersions, EventLoopGroup group, long intervalMillis) {
        this.services = services;
        this.modelVersions = modelVersions;
        this.group = group;
        this.intervalMillis = intervalMillis;
    }

    public void start() {
        task = group.next().scheduleWithFixedDelay(this::probeAll, 0, intervalMillis, TimeUnit.MILLISECONDS);
    }

    private void probeAll() {
        for (BackendPool pool : services.pools()) {
            for (URI url : pool.urls()) {
                // An upstream call must start on the event loop it runs on (it is confined to it).
                EventLoop loop = group.next();
                loop.execute(() -> BackendProbe.fetchModels(services.upstream(), loop, url,
                        services.settings(pool.backend().name()), pool.backend().apiKey(), result -> {
                            boolean ok = result.ok();
                            pool.markHealthy(url, ok);
                            states.put(url, new UrlState(ok, System.currentTimeMillis()));
                            recordModels(pool.backend().name(), url, ok ? result.body() : null);
                        }));
            }
        }
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

    /** Ready when every backend has at least one URL whose last probe succeeded. */
    public boolean ready() {
        for (BackendPool pool : services.pools()) {
            boolean any = false;
            for (URI url : pool.urls()) {
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
        for (BackendPool pool : services.pools()) {
            Map<String, Boolean> urls = new LinkedHashMap<>();
            for (URI url : pool.urls()) {
                UrlState s = states.get(url);
                urls.put(url.toString(), s != null && s.reachable());
            }
            out.put(pool.backend().name(), urls);
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
