package io.cachegate.routing;

import io.cachegate.config.Balance;
import io.cachegate.testkit.FakeTicker;
import java.net.URI;
import java.util.List;
import java.util.SplittableRandom;

/** Test fixtures: three replica URLs and sets over them with a fake ticker and a seeded random. */
final class Replicas {

    static final URI A = URI.create("http://10.0.0.1:8000");
    static final URI B = URI.create("http://10.0.0.2:8000");
    static final URI C = URI.create("http://10.0.0.3:8000");

    private Replicas() {
    }

    static ReplicaSet set(ReplicaSetSettings settings, FakeTicker ticker, URI... uris) {
        return ReplicaSet.builder("main", List.of(uris)).settings(settings).ticker(ticker)
                .random(new SplittableRandom(42)).build();
    }

    static ReplicaSet set(Balance balance, URI... uris) {
        return set(ReplicaSetSettings.defaults().withBalance(balance), new FakeTicker(), uris);
    }

    static ReplicaLease acquire(ReplicaSet set, RoutingRequest request) {
        return set.tryAcquire(request).orElseThrow(() -> new AssertionError("no replica for " + request));
    }
}
