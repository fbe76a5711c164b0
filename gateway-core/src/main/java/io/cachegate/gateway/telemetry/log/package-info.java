/**
 * The access and audit log and the sampled-request log: JSON lines built on the event loop (or, with text, just
 * described there) and written by one daemon thread per log ({@link io.cachegate.gateway.telemetry.log.LineWriter})
 * to stdout or a size-rotated file, through a bounded queue that drops and counts rather than waits.
 */
package io.cachegate.gateway.telemetry.log;
