package io.cachegate.gateway.dispatch;

import io.cachegate.admission.AdmissionController;
import io.cachegate.config.Backend;
import io.cachegate.config.Balance;
import io.cachegate.gateway.upstream.UpstreamSettings;
import io.cachegate.routing.ReplicaSet;
import io.cachegate.routing.RetryPolicy;
import java.util.Optional;

/**
 * One backend as dispatch sees it: its replicas and their state, its retry policy, its admission
 * controller when the policy turns admission control on, and the settings of calls to it.
 */
public record BackendDispatch(Backend backend, ReplicaSet replicas, RetryPolicy retry,
                              Optional<AdmissionController> admission, UpstreamSettings upstream) {

    public String name() {
        return backend.name();
    }

    /** Whether replica choice looks at the prompt's prefix: prefix affinity, or kv_aware (which falls back to it). */
    public boolean prefixAffinity() {
        return backend.balance() == Balance.PREFIX_AFFINITY || backend.balance() == Balance.KV_AWARE;
    }
}
