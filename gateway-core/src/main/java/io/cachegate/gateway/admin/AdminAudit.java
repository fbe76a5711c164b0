package io.cachegate.gateway.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.PurgeScope;
import io.cachegate.gateway.telemetry.log.AuditLog;
import io.netty.channel.ChannelHandlerContext;

/**
 * What the admin listener tells the audit log of its mutating calls, refused ones included, and the reloader of
 * the reloads a signal or a changed file started. Never the admin token (a header, not passed here) and never a
 * purged end user's id: a purge by user logs that it was one.
 */
public final class AdminAudit {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final AuditLog log;

    public AdminAudit(AuditLog log) {
        this.log = log;
    }

    /** {@code path} ({@code /admin/purge} or {@code /admin/reload}) was refused before it did anything. */
    void refused(ChannelHandlerContext ctx, String path, int status, String outcome) {
        log.write(path.substring("/admin/".length()), ctx.channel().remoteAddress(), status, outcome, null, null);
    }

    void purge(ChannelHandlerContext ctx, PurgeScope scope, int status, CacheAdmin.Purged purged) {
        ObjectNode params = JSON.createObjectNode();
        if (scope.user().isPresent()) {
            params.put("user", true); // that it was a purge by user; the id (even digested) stays out
        } else {
            if (scope.all()) {
                params.put("all", true);
            }
            scope.tenant().ifPresent(t -> params.put("tenant", t));
            scope.modelVersion().ifPresent(v -> params.put("model_version", v));
            scope.tag().ifPresent(t -> params.put("tag", t));
        }
        ObjectNode result = null;
        if (purged != null) {
            result = JSON.createObjectNode().put("purged", purged.exact()).put("semantic_purged", purged.semantic());
        }
        log.write("purge", ctx.channel().remoteAddress(), status, purged != null ? "ok" : "failed", params, result);
    }

    void reload(ChannelHandlerContext ctx, int status, ReloadOutcome outcome) {
        log.write("reload", ctx.channel().remoteAddress(), status, outcome != null ? outcome.outcome() : "failed", null,
                result(outcome));
    }

    /** A reload nobody called over the admin API: {@code trigger} is {@code signal} (SIGHUP) or {@code file}. */
    public void reload(String trigger, ReloadOutcome outcome) {
        log.write("reload", null, outcome != null ? 200 : 500, outcome != null ? outcome.outcome() : "failed",
                JSON.createObjectNode().put("trigger", trigger), result(outcome));
    }

    private static ObjectNode result(ReloadOutcome outcome) {
        ObjectNode result = null;
        if (outcome != null) {
            result = JSON.createObjectNode().put("generation", outcome.generation())
                    .put("problems", outcome.problems().size());
            outcome.restartRequired().forEach(result.putArray("restart_required")::add);
        }
        return result;
    }
}
