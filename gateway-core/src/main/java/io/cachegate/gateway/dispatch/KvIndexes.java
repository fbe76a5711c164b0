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
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
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
    static final int TOKENIZE_QUEUE = 64;

    /** One backend's index and, when it has a tokenizer, how its prompts become the engine's tokens. */
    public record Entry(BackendKvIndex index, Optional<PromptTokens> tokens) {
    }

    private final Map<String, Entry> byBackend;
    private final KvEventSubscriber subscriber;
    private final Map<String, KvIndexMetrics> metrics;
    private final List<PromptTokens> tokenizers;
    /** Turns prompts into tokens off the event loops; null without tokenizers. */
    private final ThreadPoolExecutor tokenizing;

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
        this.tokenizing = loaded.isEmpty() ? null : tokenizingThreads();
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

    /**
     * Runs {@code work} (a prompt's tokenization: ~5 ms for 2,000 tokens, tens of ms on a loaded machine) on the
     * tokenizing threads, so that no event loop waits on it. Empty when the queue is full or there is no tokenizer:
     * the request then routes by prefix affinity rather than wait.
     */
    public Optional<CompletableFuture<int[]>> tokenize(Supplier<int[]> work) {
        if (tokenizing == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(CompletableFuture.supplyAsync(work, tokenizing));
        } catch (RejectedExecutionException e) {
            return Optional.empty();
        }
    }

    /**
     * Half the cores (at least one): tokenizing takes CPU the event loops need too. The queue holds
     * {@value #TOKENIZE_QUEUE} prompts, ~0.3 s of work for one thread: a request that would wait longer is better
     * routed by prefix affinity at once.
     */
    private static ThreadPoolExecutor tokenizingThreads() {
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        AtomicInteger n = new AtomicInteger();
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(TOKENIZE_QUEUE),
                r -> {
                    Thread t = new Thread(r, "cachegate-kv-tokenize-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.AbortPolicy());
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
        if (tokenizing != null) {
            tokenizing.shutdownNow();
            try {
                // A tokenization under way uses the native tokenizer: let it end before that is freed.
                tokenizing.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        tokenizers.forEach(PromptTokens::close);
    }
}
