package io.cachegate.gateway;

import io.cachegate.cache.exact.CacheStore;
import io.cachegate.config.Policy;
import io.cachegate.gateway.cache.AccessLabelsStage;
import io.cachegate.gateway.cache.CacheKeyStage;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.SensitiveDataStage;
import io.cachegate.gateway.cache.capture.CaptureStage;
import io.cachegate.gateway.cache.coalesce.CoalesceStage;
import io.cachegate.gateway.cache.coalesce.Coalescer;
import io.cachegate.gateway.cache.coalesce.FleetCoalesceStage;
import io.cachegate.gateway.cache.embeddings.EmbeddingItemsStage;
import io.cachegate.gateway.cache.exact.ExactCacheStage;
import io.cachegate.gateway.cache.exact.Revalidations;
import io.cachegate.gateway.cache.semantic.EarlyEmbedStage;
import io.cachegate.gateway.cache.audit.HitAudits;
import io.cachegate.gateway.cache.semantic.SemanticCache;
import io.cachegate.gateway.cache.semantic.SemanticCacheStage;
import io.cachegate.gateway.dispatch.AdmissionStage;
import io.cachegate.gateway.dispatch.Backends;
import io.cachegate.gateway.dispatch.ReplicaChoiceStage;
import io.cachegate.gateway.dispatch.ServePlanner;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.quota.QuotaStage;
import io.cachegate.gateway.quota.Quotas;
import io.cachegate.gateway.exchange.StageChain;
import io.cachegate.gateway.relay.RelayStage;
import io.cachegate.gateway.request.AuthenticateStage;
import io.cachegate.gateway.request.EndpointStage;
import io.cachegate.gateway.request.ModelListStage;
import io.cachegate.gateway.request.ParseStage;
import io.cachegate.gateway.request.RouteStage;
import io.cachegate.gateway.server.ProxyServices;
import java.util.ArrayList;
import java.util.List;

/**
 * The request path, top to bottom: every request is one {@link io.cachegate.gateway.exchange.Exchange} taken
 * through these stages in order. Each stage answers it or hands it to the next; a new capability (quotas, access
 * labels, tracing) is a new {@link Stage} and one line here.
 */
final class RequestPath {

    private RequestPath() {
    }

    /**
     * @param coalescer shared by every policy generation: identical misses on either side of a reload share a call
     * @param quotas shared by every policy generation too: a reload re-configures the tenants' buckets, never refills
     */
    static StageChain assemble(ProxyServices services, CacheStore store, SemanticCache semantic, CacheKeys keys,
                               Coalescer coalescer, Quotas quotas, Backends backends) {
        Policy policy = services.policy();
        ServePlanner planner = new ServePlanner(policy, backends);
        List<Stage> stages = new ArrayList<>();
        stages.add(new EndpointStage());                                       // which API: 400, 404
        stages.add(new AuthenticateStage(policy));                             // API key -> tenant: 401
        stages.add(new ModelListStage(policy, backends, services.upstream())); // GET /v1/models answered here
        stages.add(new ParseStage(services.parser(), policy.server()));        // strict JSON: 400, 405; other: 404
        stages.add(new RouteStage(services.routes(), services.parser()));      // model, tenant -> route: 404
        stages.add(new AccessLabelsStage(policy));                             // X-Cache-Labels held by the key: 403
        stages.add(new QuotaStage(quotas));                                    // tenant limits: 429 + x-ratelimit-*
        stages.add(new CacheKeyStage(policy, keys));                           // cacheability and key, or BYPASS
        stages.add(new SensitiveDataStage(policy, keys, services.metrics())); // personal data, secrets: BYPASS, private
        stages.add(new EmbeddingItemsStage(store, keys, services.metrics()));  // embeddings lists: per item, merged
        if (semantic != null && semantic.settings().embedEarly()) {
            stages.add(new EarlyEmbedStage(semantic));                          // embed while the exact lookup runs
        }
        List<Stage> missPath = missPath(services, store, semantic, keys, coalescer, backends, planner);
        Revalidations revalidations = new Revalidations(new StageChain(missPath), services.metrics());
        stages.add(new ExactCacheStage(store, coalescer, revalidations));      // L1/L2 lookup: HIT exact, STALE
        HitAudits audits = semantic == null ? null : new HitAudits(semantic.settings().audit(), semantic.evidence(),
                semantic.embedder(), semantic.index(), store, backends, services.upstream(), policy.authRequired(),
                services.metrics().audits());
        if (semantic != null) {
            stages.add(new SemanticCacheStage(semantic, store, audits, services.metrics())); // nearest: HIT semantic
        }
        stages.addAll(missPath);
        return new StageChain(stages);
    }

    /**
     * The miss path, from coalescing to the relay: what a request no cache answered goes through, and what the
     * background refresh of an entry served stale goes through too ({@link Revalidations}).
     */
    private static List<Stage> missPath(ProxyServices services, CacheStore store, SemanticCache semantic,
                                        CacheKeys keys, Coalescer coalescer, Backends backends, ServePlanner planner) {
        Policy policy = services.policy();
        List<Stage> stages = new ArrayList<>();
        if (coalescer.fleet() != null) {
            stages.add(new FleetCoalesceStage(coalescer.fleet(), store,
                    policy.cache().fleet()));                                  // another gateway's: HIT, or claim
        }
        stages.add(new CoalesceStage(coalescer));                              // MISS: lead, or follow one in flight
        stages.add(new CaptureStage(store, keys, semantic, backends::skipOptionalWork,
                services.metrics()));                                          // tap: store, write-back, explore
        stages.add(new AdmissionStage(planner));                               // class queue: 429/503 Retry-After
        stages.add(new ReplicaChoiceStage());                                  // least-loaded / prefix affinity
        stages.add(new RelayStage(policy, services.upstream(), planner, services.metrics())); // upstream, retries
        return stages;
    }
}
