package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testing.RedisTestServer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Leases of two gateways on the real Redis: who leads, who waits, and the word that ends a wait. */
class RedisFlightLeasesIT {

    private static final Duration TTL = Duration.ofSeconds(10);
    private RedisFlightLeases a;
    private RedisFlightLeases b;
    private String uri;

    @BeforeEach
    void connect() {
        uri = RedisTestServer.sharedUri();
        a = RedisFlightLeases.connect(uri, Duration.ofSeconds(2), 100);
        b = RedisFlightLeases.connect(uri, Duration.ofSeconds(2), 100);
        TestEntries.await(Duration.ofSeconds(10), () -> claim(a, key()) == FlightLeases.Claim.LEAD
                && claim(b, key()) == FlightLeases.Claim.LEAD);
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private static CacheKey key() {
        return new CacheKey("t" + UUID.randomUUID(), "m1", "0".repeat(64));
    }

    private static FlightLeases.Claim claim(FlightLeases leases, CacheKey key) {
        return leases.claim(key, TTL, TTL).join();
    }

    @Test
    void claim_firstLeads_sameGatewayJoins_otherWaits() {
        CacheKey key = key();
        assertThat(claim(a, key)).isEqualTo(FlightLeases.Claim.LEAD);
        assertThat(claim(a, key)).isEqualTo(FlightLeases.Claim.OURS);
        assertThat(claim(b, key)).isEqualTo(FlightLeases.Claim.ELSEWHERE);
        assertThat(RedisTestServer.command(uri, "PTTL", RedisFlightLeases.leaseKey(key)).substring(1))
                .satisfies(ms -> assertThat(Long.parseLong(ms)).isBetween(1L, TTL.toMillis()));
    }

    @Test
    void releaseDone_tellsTheWaiter_andLeavesADoneMarker() throws Exception {
        CacheKey key = key();
        claim(a, key);
        CompletableFuture<Boolean> word = new CompletableFuture<>();
        assertThat(b.listen(key, word::complete)).isTrue();
        assertThat(b.listeners()).isEqualTo(1);

        a.release(key, true);

        assertThat(word.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(b.listeners()).isZero();
        assertThat(claim(b, key)).as("a claim right after the end reads the entry").isEqualTo(FlightLeases.Claim.DONE);
    }

    @Test
    void releaseFailed_tellsTheWaiter_andFreesTheLease() throws Exception {
        CacheKey key = key();
        claim(a, key);
        CompletableFuture<Boolean> word = new CompletableFuture<>();
        b.listen(key, word::complete);

        a.release(key, false);

        assertThat(word.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(claim(b, key)).as("a waiter takes over").isEqualTo(FlightLeases.Claim.LEAD);
    }

    @Test
    void release_byAGatewayThatDoesNotHoldTheLease_leavesIt() {
        CacheKey key = key();
        claim(a, key);
        b.release(key, false);
        assertThat(claim(b, key)).isEqualTo(FlightLeases.Claim.ELSEWHERE);
    }

    @Test
    void heldLease_isRenewedByItsLiveHolder_pastItsLifetime() throws Exception {
        CacheKey key = key();
        Duration short_ = Duration.ofMillis(400);
        assertThat(a.claim(key, short_, TTL).join()).isEqualTo(FlightLeases.Claim.LEAD);

        Thread.sleep(1_500); // almost four lifetimes: only the heartbeat keeps it

        assertThat(claim(b, key)).as("renewed while its holder lives").isEqualTo(FlightLeases.Claim.ELSEWHERE);
        a.release(key, true);
        assertThat(a.holds(key)).isFalse();
    }

    @Test
    void deadHoldersLease_lapsesWithinItsLifetime_andOneWaiterTakesOver() {
        CacheKey key = key();
        RedisFlightLeases dying = RedisFlightLeases.connect(uri, Duration.ofSeconds(2), 10);
        TestEntries.await(Duration.ofSeconds(10), () -> claim(dying, key()) == FlightLeases.Claim.LEAD);
        assertThat(dying.claim(key, Duration.ofMillis(500), TTL).join()).isEqualTo(FlightLeases.Claim.LEAD);

        dying.close(); // no release, no more heartbeats: as a gateway that was killed
        long closedAt = System.nanoTime();
        TestEntries.await(Duration.ofSeconds(5), () -> claim(a, key) == FlightLeases.Claim.LEAD);

        assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).isLessThan(Duration.ofMillis(2_000));
        assertThat(claim(b, key)).as("exactly one takes over").isEqualTo(FlightLeases.Claim.ELSEWHERE);
    }

    @Test
    void lease_isNotRenewedPastItsHoldBound() {
        CacheKey key = key();
        assertThat(a.claim(key, Duration.ofMillis(300), Duration.ofMillis(600)).join())
                .isEqualTo(FlightLeases.Claim.LEAD);

        // Never released (its request vanished): held at most 600 ms, then it lapses with its last renewal.
        TestEntries.await(Duration.ofSeconds(5), () -> claim(b, key) == FlightLeases.Claim.LEAD);
        TestEntries.await(Duration.ofSeconds(5), () -> !a.holds(key));
    }

    @Test
    void listen_boundedByMaxListeners() {
        RedisFlightLeases small = RedisFlightLeases.connect(uri, Duration.ofSeconds(2), 2);
        try {
            TestEntries.await(Duration.ofSeconds(10), () -> claim(small, key()) == FlightLeases.Claim.LEAD);
            CacheKey key = key();
            FlightLeases.Listener l1 = done -> { };
            FlightLeases.Listener l2 = done -> { };
            assertThat(small.listen(key, l1)).isTrue();
            assertThat(small.listen(key, l2)).isTrue();
            assertThat(small.listen(key, done -> { })).as("the third waiter").isFalse();
            small.unlisten(key, l1);
            assertThat(small.listen(key, done -> { })).isTrue();
        } finally {
            small.close();
        }
    }

    @Test
    void unreachableRedis_claimsAreUnavailable_neverBlock() {
        int port = RedisTestServer.freePort();
        RedisFlightLeases down = RedisFlightLeases.connect("redis://127.0.0.1:" + port, Duration.ofMillis(200), 10);
        try {
            assertThat(claim(down, key())).isEqualTo(FlightLeases.Claim.UNAVAILABLE);
            assertThat(down.listen(key(), done -> { })).isFalse();
        } finally {
            down.close();
        }
    }
}
