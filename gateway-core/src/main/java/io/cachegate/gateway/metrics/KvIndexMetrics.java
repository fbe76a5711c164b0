package io.cachegate.gateway.metrics;

import io.cachegate.kv.KvEventSubscriber;
import io.cachegate.kv.KvFeed;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The KV-cache index's meters, per replica of each {@code kv_aware} backend: the blocks held, the batches applied,
 * sequence gaps (and those the replay could not fill), publisher restarts, and the lag from an engine's event to
 * its application. Bound to one set of feeds: {@link #close()} removes them when a reload replaces the backends.
 */
public final class KvIndexMetrics implements KvEventSubscriber.Listener, AutoCloseable {

    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final Timer lag;

    /** @param feeds one backend's, in its URL order */
    public KvIndexMetrics(MeterRegistry registry, String backend, List<KvFeed> feeds, List<URI> replicaUrls) {
        this.registry = registry;
        this.lag = Timer.builder("cachegate.kv.event.lag").tag("backend", backend)
                .description("From a replica stamping a KV-cache event batch to this gateway applying it")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry);
        meters.add(lag);
        for (int i = 0; i < feeds.size(); i++) {
            KvFeed f = feeds.get(i);
            Tags tags = Tags.of("backend", f.backend(), "replica", replicaUrls.get(i).toString());
            meters.add(Gauge.builder("cachegate.kv.index.blocks", f, feed -> feed.blocks().size())
                    .description("KV blocks the replica holds per its events (any medium)").tags(tags)
                    .register(registry));
            meters.add(FunctionCounter.builder("cachegate.kv.event.batches", f, KvFeed::batches)
                    .description("KV-cache event batches applied, live and replayed").tags(tags).register(registry));
            meters.add(FunctionCounter.builder("cachegate.kv.event.gaps", f, KvFeed::gaps)
                    .description("Sequence gaps in a replica's live event stream").tags(tags).register(registry));
            meters.add(FunctionCounter.builder("cachegate.kv.event.gaps.unfilled", f, KvFeed::gapsUnfilled)
                    .description("Gaps (or history at start) the replay could not fill: the index may lack blocks")
                    .tags(tags).register(registry));
            meters.add(FunctionCounter.builder("cachegate.kv.publisher.restarts", f, KvFeed::restarts)
                    .description("Times a replica's event sequence started again (its cache forgotten)")
                    .tags(tags).register(registry));
        }
    }

    @Override
    public void lag(KvFeed feed, long nanos) {
        lag.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        meters.forEach(registry::remove);
    }
}
