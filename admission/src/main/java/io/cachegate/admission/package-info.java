/**
 * Admission control for one backend pool: traffic classes with bounded per-class queues (in requests
 * and tokens), dispatch in priority order with a credit share so batch is delayed but not starved,
 * per-class in-flight caps so that a lower class cannot hold every slot a higher one then waits for,
 * early rejection from a measured drain rate with Retry-After, queue-time expiry, and an overload mode
 * with hysteresis that pauses batch-like classes and degrades others.
 *
 * <p>{@link io.cachegate.admission.AdmissionController} is the entry point; capacity comes from a
 * {@link io.cachegate.admission.CapacityGate} the gateway adapts from {@code routing}. Plain Java with
 * an injectable {@link io.cachegate.config.Ticker}: no Netty, no threads, and of the policy only its
 * {@link io.cachegate.config.OverloadPolicy} (the gateway maps classes and capacity into
 * {@link io.cachegate.admission.AdmissionSettings}), so it is tested with a fake clock and wired by
 * {@code gateway-core}.
 */
package io.cachegate.admission;
