/**
 * Admission control (to come): traffic classes, bounded priority queues with token-weighted cost,
 * overload detection with hysteresis and Retry-After estimates. Plain Java with an injectable clock.
 */
package io.cachegate.admission;
