/**
 * Backend pools and replica choice: which URL of a backend serves the next call, and which one a
 * failed call is retried on. Later: health, circuit breaking, least-loaded and prefix-affinity
 * selection, fallback chains. Plain Java, no network types.
 */
package io.cachegate.routing;
