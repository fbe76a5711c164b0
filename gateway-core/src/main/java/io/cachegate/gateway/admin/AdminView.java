package io.cachegate.gateway.admin;

import io.cachegate.gateway.server.ProxyServices;
import java.util.concurrent.CompletableFuture;

/** What the admin API reads of the running gateway: the current policy's parts, which a reload replaces. */
public interface AdminView {

    ProxyServices services();

    BackendHealth health();

    boolean draining();

    /** Reloads the policy file, off the event loop; completes with what became of it. */
    CompletableFuture<ReloadOutcome> reload();
}
