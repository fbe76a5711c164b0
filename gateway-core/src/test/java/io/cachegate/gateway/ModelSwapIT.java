package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.ModelCard;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.simulator.SimulatorReplicas;
import io.cachegate.testkit.Poll;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * A model swap under load (issue 27): clients repeat a few cacheable chats against two replicas while one replica
 * and then the other changes its model card. Once the gateway has seen a replica report the new version, no answer
 * of the old version is a HIT; while the replicas disagree every request bypasses the cache; once they agree the
 * cache fills again under the new version; every client gets a 200. The answers tell the versions apart by the
 * simulator's {@code system_fingerprint} (the card's revision). Prints the measured delays.
 */
class ModelSwapIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODEL = "llama-3.1-8b";
    private static final String OLD = "r1";
    private static final String NEW = "r2";
    private static final int CLIENTS = 8;
    private static final int PROMPTS = 6;
    /**
     * Each phase (before the swap, replicas disagreeing, after it) runs at least this long and until it has
     * {@link #PHASE_CALLS} calls of its kind: on a loaded machine a fixed time may hold too few.
     */
    private static final Duration PHASE = Duration.ofMillis(1500);
    private static final int PHASE_CALLS = 30;
    /** Bound on any wait: for a phase's calls, for the gateway to see a card. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** The policy's {@code health.interval}: how often the gateway re-reads each replica's /v1/models (the minimum). */
    private static final String PROBE_INTERVAL = "100ms";

    /** One client's call: when it started and ended (System.nanoTime), its status, X-Cache and the answer's version. */
    record Call(long start, long end, int status, String xCache, String version) {
        boolean hit() {
            return "HIT".equals(xCache);
        }
    }

    @Test
    void swapOneReplicaThenAll_noOldHitOnceSeen_bypassWhileTheyDisagree_newHitsAfter() throws Exception {
        SimulatorOptions options = SimulatorOptions.defaults().withTtftMs(15).withTpotMs(2)
                .withDefaultMaxTokens(8) // no max_tokens: the answers end with "stop", and only those are stored
                .withModelCards(List.of(ModelCard.parse(MODEL + "=@" + OLD)));
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(2, options);
             Gateway gw = Gateway.start(TestPolicies.parse(policy(sims.baseUrls())))) {
            assertThat(Poll.until(Duration.ofSeconds(10), () -> agreedVersion(gw).isPresent()))
                    .as("the gateway read both replicas' /v1/models").isTrue();
            String oldVersion = agreedVersion(gw).orElseThrow();
            ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
            AtomicBoolean running = new AtomicBoolean(true);
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            for (int i = 0; i < CLIENTS; i++) {
                clients.execute(() -> repeatChats(gw.port(), running, calls));
            }

            hold(calls, Long.MIN_VALUE, c -> c.hit() && OLD.equals(c.version()), "old-version HITs (warm-up)");
            long swapOne = swap(sims.replica(0));
            assertThat(Poll.until(WAIT, () -> disagreeing(gw))).as("the gateway saw replica 0's card").isTrue();
            long seenOne = System.nanoTime();
            hold(calls, seenOne, c -> true, "calls while the replicas disagree");
            long swapAll = swap(sims.replica(1));
            assertThat(Poll.until(WAIT, () -> agreedVersion(gw).filter(v -> !v.equals(oldVersion)).isPresent()))
                    .as("the gateway saw both replicas' new card").isTrue();
            long seenAll = System.nanoTime();
            hold(calls, seenAll, c -> c.hit() && NEW.equals(c.version()), "new-version HITs");
            running.set(false);
            clients.shutdown();
            assertThat(clients.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

            List<Call> all = List.copyOf(calls);
            report(all, swapOne, seenOne, swapAll, seenAll);
            assertThat(all).as("every client gets a 200").allMatch(c -> c.status() == 200)
                    .as("every answer says its version").allMatch(c -> c.version() != null);
            assertThat(all).as("the cache served the old version before the swap")
                    .anyMatch(c -> c.end() < swapOne && c.hit() && c.version().equals(OLD));
            assertThat(startedIn(all, seenOne, Long.MAX_VALUE))
                    .as("no old-version HIT once the gateway saw the new one")
                    .noneMatch(c -> c.hit() && c.version().equals(OLD));
            // Within [seenOne, swapAll) the gateway can only see disagreement; a call that started there but ended
            // later may have reached it after the probe that followed the last swap, so only whole calls count.
            assertThat(all.stream().filter(c -> c.start() >= seenOne && c.end() < swapAll).toList())
                    .as("while the replicas disagree, every request bypasses")
                    .isNotEmpty().allMatch(c -> "BYPASS".equals(c.xCache()));
            assertThat(startedIn(all, seenAll, Long.MAX_VALUE)).as("once they agree, only the new version is served")
                    .isNotEmpty().allMatch(c -> c.version().equals(NEW))
                    .as("and from the cache again").anyMatch(Call::hit);
            String metrics = RawHttp.get(gw.adminPort(), "/metrics").body();
            assertThat(metrics).as("the bypasses are counted with their reason")
                    .containsPattern("cachegate_cache_bypass_total\\{[^}]*reason=\"model_versions_disagree\"");
        }
    }

    /** One client: a few repeated chats, one after the other with a short pause, until told to stop. */
    private static void repeatChats(int port, AtomicBoolean running, ConcurrentLinkedQueue<Call> calls) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (running.get()) {
            String body = "{\"model\":\"" + MODEL + "\",\"temperature\":0,\"messages\":"
                    + "[{\"role\":\"user\",\"content\":\"question " + random.nextInt(PROMPTS) + "\"}]}";
            long start = System.nanoTime();
            try {
                HttpResponse<String> r = RawHttp.post(port, "/v1/chat/completions", body);
                calls.add(new Call(start, System.nanoTime(), r.statusCode(), r.headers().firstValue("X-Cache")
                        .orElse(null), r.statusCode() == 200 ? JSON.readTree(r.body()).path("system_fingerprint")
                        .asText(null) : null));
                Thread.sleep(random.nextInt(2, 10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                calls.add(new Call(start, System.nanoTime(), -1, e.toString(), null));
            }
        }
    }

    /** Lets the load run for a {@link #PHASE} and until {@link #PHASE_CALLS} calls started since {@code from} match. */
    private static void hold(ConcurrentLinkedQueue<Call> calls, long from, Predicate<Call> which, String what)
            throws InterruptedException {
        Thread.sleep(PHASE.toMillis());
        assertThat(Poll.until(WAIT, () -> calls.stream().filter(c -> c.start() >= from && which.test(c)).count()
                >= PHASE_CALLS)).as(PHASE_CALLS + " " + what).isTrue();
    }

    /** Changes the replica's model card to the new revision; returns when (System.nanoTime) it took effect. */
    private static long swap(BackendSimulator replica) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(replica.baseUrl().resolve("/sim/models/" + MODEL))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"revision\":\"" + NEW + "\"}")).build();
        HttpResponse<String> r = RawHttp.CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return System.nanoTime();
    }

    /** The version /admin/stats shows for the model, unless the replicas disagree or none has reported. */
    private static Optional<String> agreedVersion(Gateway gw) {
        return versionShown(gw).filter(v -> !v.startsWith("("));
    }

    private static boolean disagreeing(Gateway gw) {
        return versionShown(gw).filter(v -> v.equals("(replicas disagree)")).isPresent();
    }

    private static Optional<String> versionShown(Gateway gw) {
        try {
            JsonNode stats = JSON.readTree(RawHttp.get(gw.adminPort(), "/admin/stats").body());
            JsonNode version = stats.path("modelVersions").path("main").path(MODEL);
            return version.isTextual() ? Optional.of(version.textValue()) : Optional.empty();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Call> startedIn(List<Call> calls, long from, long until) {
        return calls.stream().filter(c -> c.start() >= from && c.start() < until).toList();
    }

    /** Prints what the brief asks to measure, in ms after the swaps, and the outcomes of each phase. */
    private static void report(List<Call> all, long swapOne, long seenOne, long swapAll, long seenAll) {
        OptionalLong lastOldHit = ends(all, c -> c.hit() && OLD.equals(c.version())).max();
        OptionalLong lastOld = ends(all, c -> OLD.equals(c.version())).max();
        OptionalLong firstNewHit = ends(all, c -> c.hit() && NEW.equals(c.version())).min();
        System.out.printf(Locale.ROOT, "model swap under load: %d calls by %d clients over %d prompts, probe every %s%n"
                        + "  first swap (replica 0):  gateway saw it after %s; last old-version HIT %s after it%n"
                        + "  last swap (replica 1):   gateway saw it after %s; first new-version HIT %s after it; "
                        + "last old-version answer %s after it%n"
                        + "  calls started before the first swap: %s%n"
                        + "  started while the gateway saw the replicas disagree (until the last swap): %s%n"
                        + "  started once it saw the new version: %s%n",
                all.size(), CLIENTS, PROMPTS, PROBE_INTERVAL, ms(seenOne, swapOne), ms(lastOldHit, swapOne),
                ms(seenAll, swapAll), ms(firstNewHit, swapAll), ms(lastOld, swapAll),
                outcomes(startedIn(all, Long.MIN_VALUE, swapOne)), outcomes(startedIn(all, seenOne, swapAll)),
                outcomes(startedIn(all, seenAll, Long.MAX_VALUE)));
    }

    private static LongStream ends(List<Call> calls, Predicate<Call> which) {
        return calls.stream().filter(which).mapToLong(Call::end);
    }

    /** Counts by X-Cache and version, e.g. {@code HIT r1=812, MISS r1=6}. */
    private static String outcomes(List<Call> calls) {
        return calls.stream().collect(Collectors.groupingBy(c -> c.xCache() + " " + Objects.toString(c.version()),
                TreeMap::new, Collectors.counting())).toString();
    }

    private static String ms(long at, long since) {
        return String.format(Locale.ROOT, "%.0f ms", (at - since) / 1e6);
    }

    private static String ms(OptionalLong at, long since) {
        return at.isPresent() ? ms(at.getAsLong(), since) : "(none)";
    }

    private static String policy(List<URI> urls) {
        return """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2}
                backends:
                  - name: main
                    urls: [%s]
                    health: {interval: %s}
                    timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}
                cache:
                  exact: {store: memory, ttl: 1h}
                routes:
                  - match: {model: "*"}
                    cache: {exact: true}
                """.formatted(urls.stream().map(u -> "\"" + u + "\"").collect(Collectors.joining(", ")),
                PROBE_INTERVAL);
    }
}
