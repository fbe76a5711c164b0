/**
 * Backend pools and replica choice: which URL of a backend serves the next call, which one a
 * failed call is retried on, and which URLs health checks have found down. Later: circuit
 * breaking, least-loaded and prefix-affinity selection, fallback chains. Plain Java, no network types.
 */
package io.cachegate.routing;
