package io.cachegate.gateway.upstream;

import io.cachegate.config.Backend;
import io.cachegate.config.Timeouts;

/** A backend's timeouts in nanoseconds, read once from the policy so the hot path does no conversion. */
public record UpstreamSettings(String backend, long connectMillis, long firstByteNanos, long idleNanos, long totalNanos,
                               int maxConnectionsPerUrl) {

    public static UpstreamSettings of(Backend backend) {
        Timeouts t = backend.timeouts();
        return new UpstreamSettings(backend.name(), t.connect().toMillis(), t.firstByte().toNanos(), t.idle().toNanos(),
                t.total().toNanos(), backend.maxConnectionsPerUrl());
    }
}
