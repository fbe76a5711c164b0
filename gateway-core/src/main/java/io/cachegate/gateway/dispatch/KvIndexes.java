package io.cachegate.gateway.dispatch;

import io.cachegate.config.Backend;
import io.cachegate.config.Balance;
import io.cachegate.config.KvEventsSettings;
import io.cachegate.gateway.metrics.KvIndexMetrics;
import io.cachegate.kv.BackendKvIndex;
import io.cachegate.kv.KvEventSubscriber;
import io.cachegate.kv.KvFeed;
import io.cachegate.kv.KvSnapshot;
import io.cachegate.kv.PromptTokens;
import io.cachegate.kv.ReplicaBlocks;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The KV-cache indexes of a policy's {@code kv_aware} backends, the prompt tokenizers that match against them, and
 * the one subscriber that feeds them all. Lives as long as the backends it was built for: {@link #start()} when they
 * start serving, {@link #close()} when a reload replaces them (the next set bootstraps from the replicas' replay).
 */
public final class KvIndexes implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KvIndexes.class);
    /** A quiet replica's stream is checked against its replay this often. */
    private static final Duration CATCH_UP = Duration.ofSeconds(2);

    /** One backend's index and, when it has a tokenizer, how its prompts become the engine's tokens. */
    public record Entry(BackendKvIndex index, Optional<PromptTokens> tokens) {
    }

    private final Map<String, Entry> byBackend;
    private final KvEventSubscriber subscriber;
    private final Map<String, KvIndexMetrics> metrics;
    private final List<PromptTokens> tokenizers;

    KvIndexes(List<Backend> backends, Optional<String> adminToken, MeterRegistry registry) {
        Map<String, Entry> map = new HashMap<>();
        Map<String, List<URI>> siblings = new HashMap<>();
        List<KvFeed> all = new ArrayList<>();
        Map<String, KvIndexMetrics> meters = new HashMap<>();
        List<PromptTokens> loaded = new ArrayList<>();
        for (Backend b : backends) {
            KvEventsSettings kv = b.kvEvents();
            if (b.balance() != Balance.KV_AWARE || !kv.enabled()) {
                continue;
            }
            List<KvFeed> feeds = new ArrayList<>();
            for (int i = 0; i < kv.publish().size(); i++) {
                feeds.add(new KvFeed(b.name(), i, kv.publish().get(i), kv.replay().get(i),
                        new ReplicaBlocks(kv.maxBlocksPerReplica())));
            }
            Optional<PromptTokens> tokens = kv.tokenizer()
                    .map(t -> PromptTokens.load(t, kv.chatTemplate().map(Path::of)));
            tokens.ifPresent(loaded::add);
            if (tokens.isEmpty()) {
                log.warn("backend {}: balance kv_aware without a tokenizer: prompts cannot be matched to the replicas'"
                        + " token blocks, so it routes by prefix affinity (set backends[].tokenizer)", b.name());
            }
            map.put(b.name(), new Entry(new BackendKvIndex(feeds, kv.cpuWeight()), tokens));
            meters.put(b.name(), new KvIndexMetrics(registry, b.name(), feeds, b.urls()));
            siblings.put(b.name(), kv.siblings());
            all.addAll(feeds);
        }
        this.byBackend = Map.copyOf(map);
        this.metrics = Map.copyOf(meters);
        this.tokenizers = List.copyOf(loaded);
        this.subscriber = all.isEmpty() ? null
                : new KvEventSubscriber(all, (feed, nanos) -> metrics.get(feed.backend()).lag(feed, nanos),
                        CATCH_UP, new SiblingSnapshots(siblings, adminToken));
    }

    /** The index of {@code backend}; empty when it is not {@code kv_aware} with events. */
    public Optional<Entry> of(String backend) {
        return Optional.ofNullable(byBackend.get(backend));
    }

    /** {@code backend}'s index as a snapshot for a sibling gateway ({@link KvSnapshot}); empty when it has none. */
    public Optional<byte[]> snapshot(String backend) {
        Entry entry = byBackend.get(backend);
        return entry == null ? Optional.empty() : Optional.of(KvSnapshot.write(entry.index().feeds()));
    }

    /** Starts following the replicas' events (a thread of its own); nothing to do without kv_aware backends. */
    public void start() {
        if (subscriber != null) {
            subscriber.start();
        }
    }

    @Override
    public void close() {
        if (subscriber != null) {
            subscriber.close();
        }
        metrics.values().forEach(KvIndexMetrics::close);
        tokenizers.forEach(PromptTokens::close);
    }
}
