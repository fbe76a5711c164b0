package io.cachegate.gateway;

import io.cachegate.config.CacheSettings;
import io.cachegate.config.ExactCacheSettings;
import io.cachegate.config.LogSettings;
import io.cachegate.config.Policy;
import io.cachegate.config.ServerSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a reload may change live and what needs a restart. Listener addresses and event-loop threads are bound
 * once; the exact store and the semantic cache (model, index, store) are built once, so their settings stay; a
 * new TTL, body limits, JSON limits, admin token and shutdown grace apply at once, and so do prices and
 * {@code log.include_text}; the trace exporter and the log writers are built once.
 */
final class PolicyDiff {

    private PolicyDiff() {
    }

    /** The keys that changed but take effect only on a restart. */
    static List<String> restartRequired(Policy running, Policy next) {
        List<String> keys = new ArrayList<>();
        ServerSettings a = running.server();
        ServerSettings b = next.server();
        check(keys, "server.host", a.host(), b.host());
        check(keys, "server.port", a.port(), b.port());
        check(keys, "server.admin_host", a.adminHost(), b.adminHost());
        check(keys, "server.admin_port", a.adminPort(), b.adminPort());
        check(keys, "server.io_threads", a.ioThreads(), b.ioThreads());
        // The files are watched and re-read (TlsContextWatcher); turning TLS on or off rebinds a listener.
        check(keys, "server.tls", a.tls(), b.tls());
        check(keys, "server.admin_tls", a.adminTls(), b.adminTls());
        ExactCacheSettings x = running.cache().exact();
        ExactCacheSettings y = next.cache().exact();
        check(keys, "cache.exact.store", x.store(), y.store());
        check(keys, "cache.exact.redis_uri", x.redisUri(), y.redisUri());
        check(keys, "cache.exact.timeout", x.timeout(), y.timeout());
        check(keys, "cache.exact.max_bytes", x.maxBytes(), y.maxBytes());
        check(keys, "cache.exact.l1_ttl", x.l1Ttl(), y.l1Ttl());
        check(keys, "cache.exact.l1_max_bytes", x.l1MaxBytes(), y.l1MaxBytes());
        check(keys, "cache.exact.compress_above", x.compressAboveBytes(), y.compressAboveBytes());
        check(keys, "cache.exact.redis_queue_size", x.redisQueueSize(), y.redisQueueSize());
        check(keys, "cache.exact.signing_key", x.signingKey(), y.signingKey());
        check(keys, "cache.exact.health", x.health(), y.health());
        check(keys, "cache.semantic", running.cache().semantic(), next.cache().semantic());
        check(keys, "cache.fleet", running.cache().fleet(), next.cache().fleet());
        check(keys, "admission.tick", running.admission().tick(), next.admission().tick());
        // The exporter and the log writers are built once; what a line holds (include_text) changes live.
        check(keys, "telemetry", running.telemetry(), next.telemetry());
        check(keys, "log", withText(running.log(), false), withText(next.log(), false));
        return keys;
    }

    /** {@code next} with the restart-only settings of {@code running}: what the new generation is built from. */
    static Policy keepRestartOnly(Policy running, Policy next) {
        ServerSettings a = running.server();
        ServerSettings b = next.server();
        ServerSettings server = new ServerSettings(a.host(), a.port(), a.adminHost(), a.adminPort(), b.maxBodyBytes(),
                b.maxHeaderBytes(), b.adminToken(), b.shutdownGrace(), a.ioThreads(), b.json(), b.passthrough(),
                b.connections(), a.tls(), a.adminTls());
        ExactCacheSettings x = running.cache().exact();
        ExactCacheSettings exact = new ExactCacheSettings(x.store(), x.redisUri(), next.cache().exact().ttl(),
                x.timeout(), x.maxBytes(), x.l1Ttl(), x.l1MaxBytes(), x.compressAboveBytes(), x.redisQueueSize(),
                x.signingKey(), x.health());
        return new Policy(next.source(), server, next.backends(), next.tenants(), next.classes(),
                new CacheSettings(exact, running.cache().semantic(), next.cache().sensitivePatterns(),
                        running.cache().fleet()), next.routes(),
                next.admission(), running.telemetry(), withText(running.log(), next.log().includeText()),
                next.prices());
    }

    private static LogSettings withText(LogSettings log, boolean includeText) {
        return new LogSettings(log.access(), log.file(), log.maxFileSize(), log.maxFiles(), log.queueLines(),
                includeText, log.sampleRate(), log.sampleFile());
    }

    private static void check(List<String> keys, String key, Object was, Object is) {
        if (!Objects.equals(was, is)) {
            keys.add(key);
        }
    }
}
