package io.cachegate.admission;

import java.util.Optional;

/**
 * The capacity of one backend pool as admission sees it: a lease when a replica can take the request
 * now, empty when none can. Replica choice lives in {@code routing}; the gateway adapts it to this
 * interface (for example trying each replica's {@link PoolCapacity} in routing order). Called with
 * the controller's lock held, so it must be quick and must not call back into the controller.
 */
@FunctionalInterface
public interface CapacityGate {

    Optional<Lease> tryAcquire(AdmissionRequest request);
}
