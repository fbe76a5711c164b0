package io.cachegate.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code bench chaos --soak}: a steady open-loop rate over the gateways for a long time (40% repeats, 20%
 * paraphrases, 25% streamed), sampling each gateway's resident set and its heap after a full collection, to tell
 * whether memory grows: the least-squares slope over the last 15 minutes, and whether RSS stayed within 10%.
 */
final class ChaosSoak {

    /** The window the verdict is read over (the whole run when shorter). */
    static final Duration WINDOW = Duration.ofMinutes(15);

    /** One sample of one gateway. */
    record Sample(double minutes, int gateway, long rssKib, long heapAfterGcKib) {
    }

    /** What the soak measured. */
    record Result(Duration duration, double rate, long sent, long ok, long gatewayErrors, long hits,
                  List<Sample> samples, Map<String, Long> errors) {
    }

    private final StressFleet fleet;
    private final Progress progress;

    ChaosSoak(StressFleet fleet, Progress progress) {
        this.fleet = fleet;
        this.progress = progress;
    }

    Result run(Duration duration, double rate, Duration sampleEvery) throws Exception {
        ChaosLoad load = new ChaosLoad(Duration.ofSeconds(30));
        List<URI> gateways = fleet.gateways();
        Random random = new Random(7);
        List<String> asked = new ArrayList<>();
        AtomicLong ok = new AtomicLong();
        AtomicLong gatewayErrors = new AtomicLong();
        AtomicLong hits = new AtomicLong();
        Map<String, Long> errors = new ConcurrentHashMap<>();
        List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
        long start = System.nanoTime();
        // Sampling (jcmd takes seconds on a busy machine) on a thread of its own, so the rate holds meanwhile.
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(() -> sample(samples, (System.nanoTime() - start) / 60e9), 0,
                sampleEvery.toMillis(), TimeUnit.MILLISECONDS);
        // Bounded: at the rate and the simulator's latency, a few hundred requests are in flight at most.
        ExecutorService senders = Executors.newFixedThreadPool(256);
        long intervalNanos = (long) (1e9 / rate);
        long sent = 0;
        try {
            for (long due = start; due - start < duration.toNanos(); due += intervalNanos) {
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                ChaosLoad.Request request = next(random, asked, sent);
                int index = (int) sent++;
                senders.execute(() -> {
                    ChaosLoad.Answer a = load.send(gateways, i -> true, index, request);
                    if (a.status() == 200) {
                        ok.incrementAndGet();
                        if (a.xCache().startsWith("HIT")) {
                            hits.incrementAndGet();
                        }
                    } else {
                        if (a.failure() == ChaosLoad.Failure.GATEWAY || a.failure() == ChaosLoad.Failure.CONNECTION) {
                            gatewayErrors.incrementAndGet();
                        }
                        errors.merge(a.kind(), 1L, Long::sum);
                    }
                });
            }
        } finally {
            senders.shutdown();
            senders.awaitTermination(60, TimeUnit.SECONDS);
            senders.shutdownNow();
            sampler.shutdown();
            sampler.awaitTermination(60, TimeUnit.SECONDS);
        }
        sample(samples, (System.nanoTime() - start) / 60e9);
        List<Sample> ordered = new ArrayList<>(samples);
        ordered.sort(Comparator.comparingDouble(Sample::minutes));
        return new Result(duration, rate, sent, ok.get(), gatewayErrors.get(), hits.get(), ordered, new TreeMap<>(errors));
    }

    private void sample(List<Sample> samples, double minutes) {
        for (int g = 0; g < fleet.size(); g++) {
            long heap;
            try {
                heap = fleet.heapAfterGcKib(g);
            } catch (IOException e) {
                heap = -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            Sample s = new Sample(minutes, g, fleet.rssKib(g), heap);
            samples.add(s);
            progress.info("soak %.1f min: gateway %d RSS %d MiB, heap after GC %d MiB", minutes, g + 1,
                    s.rssKib() / 1024, s.heapAfterGcKib() / 1024);
        }
    }

    /** 40% a repeat of an earlier question, 20% a paraphrase of one, the rest new; 25% streamed. */
    private static ChaosLoad.Request next(Random random, List<String> asked, long n) {
        double draw = random.nextDouble();
        String question;
        if (asked.isEmpty() || draw >= 0.60) {
            question = "Soak question " + n + ": what does the gateway keep in memory?";
            if (asked.size() < 100_000) {
                asked.add(question);
            }
        } else if (draw < 0.40) {
            question = asked.get(random.nextInt(asked.size()));
        } else {
            question = "Put differently: " + asked.get(random.nextInt(asked.size())).toLowerCase(Locale.ROOT);
        }
        boolean stream = random.nextDouble() < 0.25;
        // No max_tokens: the simulator stops by itself, and an answer cut at max_tokens would not be stored.
        var body = BenchJson.object().put("model", ChatRequests.MODEL).put("temperature", 0).put("stream", stream);
        body.putArray("messages").addObject().put("role", "user").put("content", question);
        return new ChaosLoad.Request(BenchJson.bytes(body), stream);
    }

    /** Least-squares slope, in KiB per minute, of {@code values} over {@code minutes}; NaN under two points. */
    static double slope(List<Double> minutes, List<Long> values) {
        int n = minutes.size();
        if (n < 2) {
            return Double.NaN;
        }
        double mx = minutes.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        double my = values.stream().mapToDouble(Long::doubleValue).average().orElse(0);
        double num = 0;
        double den = 0;
        for (int i = 0; i < n; i++) {
            num += (minutes.get(i) - mx) * (values.get(i) - my);
            den += (minutes.get(i) - mx) * (minutes.get(i) - mx);
        }
        return den == 0 ? Double.NaN : num / den;
    }
}
