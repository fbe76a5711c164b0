package io.cachegate.gateway;

import io.cachegate.config.Policy;
import io.cachegate.gateway.admin.BackendHealth;
import io.cachegate.gateway.dispatch.Backends;
import io.cachegate.gateway.server.ProxyServices;
import io.cachegate.gateway.server.RequestPaths;

/**
 * What one policy builds and a reload replaces: the services, the backends (replica sets, breakers, admission
 * queues), their health probes and the request path. The caches, the upstream client, the listeners and the
 * model versions outlive generations.
 */
record Generation(long number, Policy policy, ProxyServices services, Backends backends, BackendHealth health,
                  RequestPaths.Current path) {
}
