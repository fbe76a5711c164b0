/** Micrometer meters of one gateway instance and their Prometheus exposition. */
package io.cachegate.gateway.metrics;
