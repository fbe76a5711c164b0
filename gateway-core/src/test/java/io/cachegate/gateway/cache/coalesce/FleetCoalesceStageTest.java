package io.cachegate.gateway.cache.coalesce;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.FlightLeases;
import io.cachegate.config.FleetSettings;
import io.cachegate.config.Policy;
import io.cachegate.gateway.cache.CacheKeyStage;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.ScriptedStore;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.gateway.exchange.Answers;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RecordingNext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A request's claim and wait across gateways, against leases the test answers by hand. */
class FleetCoalesceStageTest {

    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - name: main
                urls: ["http://replica-a:8000"]
                model_version: "llama@1"
                timeouts: {connect: 1s, first_byte: 2s, idle: 2s, total: 30s}
            cache:
              exact: {store: redis, ttl: 1h}
            """);
    private static final String HELLO = Exchanges.chatBody("llama-3.1-8b", "hello");

    /** Leases whose claims the test completes and whose listeners it calls. */
    private static final class HandLeases implements FlightLeases {
        final Deque<CompletableFuture<Claim>> claims = new ArrayDeque<>();
        final List<Listener> listening = new ArrayList<>();
        final List<Boolean> released = new ArrayList<>();
        boolean refuseListeners;

        @Override
        public CompletableFuture<Claim> claim(CacheKey key, Duration ttl, Duration holdAtMost) {
            CompletableFuture<Claim> claim = new CompletableFuture<>();
            claims.add(claim);
            return claim;
        }

        @Override
        public void release(CacheKey key, boolean done) {
            released.add(done);
        }

        @Override
        public boolean listen(CacheKey key, Listener listener) {
            if (refuseListeners) {
                return false;
            }
            listening.add(listener);
            return true;
        }

        @Override
        public void unlisten(CacheKey key, Listener listener) {
            listening.remove(listener);
        }

        @Override
        public int listeners() {
            return listening.size();
        }

        /** Tells every listener the generation ended, as a word from Redis would (it ends their registration). */
        void word(boolean done) {
            List<Listener> all = List.copyOf(listening);
            listening.clear();
            all.forEach(l -> l.ended(done));
        }

        @Override
        public void close() {
        }
    }

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final HandLeases leases = new HandLeases();
    private final ScriptedStore store = new ScriptedStore(exchanges.ticker());
    private final CacheKeyStage keys = new CacheKeyStage(POLICY, new CacheKeys(POLICY, new ModelVersions()));
    private final RecordingNext next = new RecordingNext();

    @AfterEach
    void close() {
        exchanges.close();
        store.close();
    }

    private FleetCoalesceStage stage(Duration maxWait) {
        return new FleetCoalesceStage(leases, store, new FleetSettings(true, maxWait, 10, Duration.ofSeconds(2), false, 1_000));
    }

    private Exchange keyed(String body) {
        Exchange x = exchanges.chat(body);
        keys.handle(x, new RecordingNext());
        assertThat(x.get(CacheableRequest.KEY)).as("cacheable").isNotNull();
        return x;
    }

    private void answer(Exchange x, FlightLeases.Claim claim) {
        leases.claims.removeFirst().complete(claim);
        Exchanges.runPending(x);
    }

    private void storeAnswer(Exchange x) {
        CacheEntry entry = new CacheEntry(Answers.HELLO.getBytes(StandardCharsets.UTF_8), exchanges.ticker().wallMillis(),
                "llama@1", "gen-1", 3, 2, Set.of());
        store.put(x.get(CacheableRequest.KEY).key(), entry, Duration.ofMinutes(1)).join();
    }

    private double outcome(String outcome) {
        return exchanges.count("cachegate.cache.coalesced.fleet", "outcome", outcome);
    }

    @Test
    void handle_leaseTaken_proceedsAsClaimed_notListening() {
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        assertThat(next.called()).as("waits for the claim's answer").isFalse();

        answer(x, FlightLeases.Claim.LEAD);

        assertThat(next.exchanges()).containsExactly(x);
        assertThat(x.get(FleetCoalesceStage.CLAIMED)).isTrue();
        assertThat(leases.listeners()).isZero();
        assertThat(outcome("led")).isEqualTo(1);
    }

    @Test
    void handle_heldElsewhere_waitsForTheWord_thenAnswersTheStoredEntryAsAFleetHit() {
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        answer(x, FlightLeases.Claim.ELSEWHERE);
        assertThat(next.called()).isFalse();
        assertThat(leases.listeners()).isEqualTo(1);
        storeAnswer(x);

        leases.word(true);
        Exchanges.runPending(x);
        Exchanges.runPending(x);

        Written written = Exchanges.written(x);
        assertThat(next.called()).isFalse();
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
        assertThat(written.header(GatewayHeaders.X_CACHE_LAYER)).isEqualTo("exact");
        assertThat(written.header(GatewayHeaders.X_CACHE_ORIGIN_REQUEST_ID)).isEqualTo("gen-1");
        assertThat(written.body()).isEqualTo(Answers.HELLO);
        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
        assertThat(outcome("hit")).isEqualTo(1);
    }

    @Test
    void handle_wordBeforeTheClaimsAnswer_isNotLost() {
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        storeAnswer(x);
        leases.word(true); // the holder finished between our SET and its reply
        Exchanges.runPending(x);

        answer(x, FlightLeases.Claim.ELSEWHERE);
        Exchanges.runPending(x);

        assertThat(Exchanges.written(x).header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
        assertThat(next.called()).isFalse();
    }

    @Test
    void handle_holderFailed_claimsAgain_andLeads() {
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        answer(x, FlightLeases.Claim.ELSEWHERE);

        leases.word(false);
        Exchanges.runPending(x);
        assertThat(leases.claims).as("a second claim").hasSize(1);
        answer(x, FlightLeases.Claim.LEAD);

        assertThat(next.exchanges()).containsExactly(x);
        assertThat(x.get(FleetCoalesceStage.CLAIMED)).isTrue();
    }

    /** A quarter of the lease's lifetime (2 s) passes: the waiter checks on the holder. */
    private void nextCheck(Exchange x) {
        Exchanges.channel(x).advanceTimeBy(501, TimeUnit.MILLISECONDS);
        Exchanges.channel(x).runScheduledPendingTasks();
    }

    @Test
    void handle_holderAlive_waiterChecksEveryQuarterLease_andKeepsWaiting() {
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        answer(x, FlightLeases.Claim.ELSEWHERE);
        assertThat(leases.claims).as("no check before a quarter of the lease's lifetime").isEmpty();

        nextCheck(x);
        assertThat(leases.claims).as("a check").hasSize(1);
        answer(x, FlightLeases.Claim.ELSEWHERE);
        nextCheck(x);
        assertThat(leases.claims).as("and another").hasSize(1);

        assertThat(next.called()).isFalse();
        assertThat(leases.listeners()).as("still listening for the word").isEqualTo(1);
    }

    @Test
    void handle_holderDied_theWaiterThatTakesTheLeaseReadsTheEntryFirst_andServesIt() {
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        answer(x, FlightLeases.Claim.ELSEWHERE);
        storeAnswer(x); // it wrote its entry, then died before its word

        nextCheck(x);
        answer(x, FlightLeases.Claim.LEAD); // its lease lapsed: this waiter has it now
        Exchanges.runPending(x);

        assertThat(next.called()).as("no second call: the entry was there").isFalse();
        assertThat(Exchanges.written(x).header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
        assertThat(leases.released).as("the other waiters are told to read it too").containsExactly(true);
        assertThat(outcome("takeover")).isEqualTo(1);
    }

    @Test
    void handle_holderDiedMidCall_oneWaiterTakesOver_andLeads() {
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        answer(x, FlightLeases.Claim.ELSEWHERE);

        nextCheck(x);
        answer(x, FlightLeases.Claim.LEAD);
        Exchanges.runPending(x);

        assertThat(next.exchanges()).containsExactly(x);
        assertThat(x.get(FleetCoalesceStage.CLAIMED)).as("its answer ends the lease it took").isTrue();
        assertThat(leases.listeners()).isZero();
        assertThat(outcome("led")).isEqualTo(1);
    }

    @Test
    void handle_leasesGoneWhileWaiting_aBlipIsWaitedOut_twoChecksInARowCallTheBackend() {
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        answer(x, FlightLeases.Claim.ELSEWHERE);

        nextCheck(x);
        answer(x, FlightLeases.Claim.UNAVAILABLE);
        assertThat(next.called()).as("one failed check is a blip").isFalse();
        nextCheck(x);
        answer(x, FlightLeases.Claim.UNAVAILABLE);

        assertThat(next.exchanges()).as("Redis is gone: no word will come").containsExactly(x);
        assertThat(outcome("unavailable")).isEqualTo(1);
    }

    @Test
    void handle_readAfterTheWordFails_isTriedOnceMore() {
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        answer(x, FlightLeases.Claim.ELSEWHERE);
        storeAnswer(x);
        store.failGets(new IllegalStateException("redis timed out"));

        leases.word(true);
        Exchanges.runPending(x);
        store.failGets(null);
        Exchanges.channel(x).advanceTimeBy(60, TimeUnit.MILLISECONDS);
        Exchanges.channel(x).runScheduledPendingTasks();
        Exchanges.runPending(x);

        assertThat(next.called()).isFalse();
        assertThat(Exchanges.written(x).header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
    }

    @Test
    void handle_doneButNothingStored_callsTheBackendItself() {
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        answer(x, FlightLeases.Claim.DONE);
        Exchanges.runPending(x);

        assertThat(next.exchanges()).containsExactly(x);
        assertThat(x.get(FleetCoalesceStage.CLAIMED)).as("it holds no lease").isNull();
        assertThat(outcome("miss")).isEqualTo(1);
    }

    @Test
    void handle_noWordCanCome_orLeasesDown_goesOnAtOnce() {
        leases.refuseListeners = true;
        Exchange full = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(full, next);
        answer(full, FlightLeases.Claim.ELSEWHERE);
        leases.refuseListeners = false;
        Exchange down = keyed(Exchanges.chatBody("llama-3.1-8b", "other"));
        stage(Duration.ofSeconds(5)).handle(down, next);
        answer(down, FlightLeases.Claim.UNAVAILABLE);

        assertThat(next.exchanges()).containsExactly(full, down);
        assertThat(outcome("full")).isEqualTo(1);
        assertThat(outcome("unavailable")).isEqualTo(1);
        assertThat(leases.listeners()).isZero();
    }

    @Test
    void handle_waitBoundRunsOut_callsTheBackend_andStopsListening() throws Exception {
        Exchange x = keyed(HELLO);
        stage(Duration.ofMillis(20)).handle(x, next);
        answer(x, FlightLeases.Claim.ELSEWHERE);

        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!next.called() && System.nanoTime() < deadline) {
            Thread.sleep(5);
            Exchanges.channel(x).runScheduledPendingTasks();
        }

        assertThat(next.exchanges()).containsExactly(x);
        assertThat(leases.listeners()).isZero();
        assertThat(outcome("timeout")).isEqualTo(1);
    }

    @Test
    void handle_clientLeavesWhileWaiting_finishesIt_andStopsListening() {
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        answer(x, FlightLeases.Claim.ELSEWHERE);

        x.cancel();

        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
        assertThat(leases.listeners()).isZero();
        assertThat(next.called()).isFalse();
        assertThat(outcome("cancelled")).isEqualTo(1);
    }

    @Test
    void handle_followingAnAnswerInFlightHere_orNotCacheable_claimsNothing() {
        Exchange following = keyed(HELLO);
        following.set(CoalesceStage.FOLLOW, new Coalescer(1 << 20).join(following.get(CacheableRequest.KEY).key(),
                false, false, "leader", null, answer -> true).answer());
        stage(Duration.ofSeconds(5)).handle(following, next);

        assertThat(next.exchanges()).containsExactly(following);
        assertThat(leases.claims).isEmpty();
    }

    @Test
    void coalesceStage_releasesAClaimedLease_whenTheAnswerHereSettles() {
        Coalescer coalescer = new Coalescer(1 << 20, leases);
        Exchange x = keyed(HELLO);
        stage(Duration.ofSeconds(5)).handle(x, next);
        answer(x, FlightLeases.Claim.LEAD);

        new CoalesceStage(coalescer).handle(x, new RecordingNext());
        SharedAnswer shared = x.get(CoalesceStage.LEADING);
        x.taps().onAbort();

        assertThat(shared.state()).isEqualTo(SharedAnswer.State.ABORTED);
        assertThat(leases.released).as("failed: the waiters elsewhere claim again").containsExactly(false);
    }
}
