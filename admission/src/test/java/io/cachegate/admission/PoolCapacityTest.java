package io.cachegate.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class PoolCapacityTest {

    private static AdmissionRequest req(long tokens) {
        return AdmissionRequest.of("c", tokens);
    }

    @Test
    void tryAcquire_concurrencyBound_refusesOneMore() {
        PoolCapacity pool = new PoolCapacity(2, 1_000_000);
        assertThat(pool.tryAcquire(req(1))).isPresent();
        assertThat(pool.tryAcquire(req(1))).isPresent();
        assertThat(pool.tryAcquire(req(1))).isEmpty();
    }

    @Test
    void tryAcquire_tokenBound_countsPromptAndMaxTokens() {
        PoolCapacity pool = new PoolCapacity(100, 1000);
        assertThat(pool.tryAcquire(req(700))).isPresent();
        assertThat(pool.tryAcquire(req(301))).isEmpty();
        assertThat(pool.tryAcquire(req(300))).isPresent();
        assertThat(pool.inflightTokens()).isEqualTo(1000);
        assertThat(pool.inflightRequests()).isEqualTo(2);
    }

    @Test
    void release_freesReservationOnce() {
        PoolCapacity pool = new PoolCapacity(2, 1000);
        Lease a = pool.tryAcquire(req(600)).orElseThrow();
        Lease b = pool.tryAcquire(req(400)).orElseThrow();
        a.release();
        a.release();
        assertThat(pool.inflightRequests()).isEqualTo(1);
        assertThat(pool.inflightTokens()).isEqualTo(400);
        b.release();
        assertThat(pool.inflightTokens()).isZero();
    }

    @Test
    void tryAcquire_largerThanBudget_onlyWhenIdle() {
        PoolCapacity pool = new PoolCapacity(4, 1000);
        Lease small = pool.tryAcquire(req(10)).orElseThrow();
        assertThat(pool.tryAcquire(req(5000))).isEmpty();
        small.release();
        Optional<Lease> big = pool.tryAcquire(req(5000));
        assertThat(big).isPresent();
        assertThat(pool.tryAcquire(req(1))).isEmpty();
    }

    @Test
    void constructor_invalidBounds_throwNamingTheField() {
        assertThatThrownBy(() -> new PoolCapacity(0, 1)).hasMessageContaining("maxConcurrency");
        assertThatThrownBy(() -> new PoolCapacity(1, 0)).hasMessageContaining("maxInflightTokens");
    }
}
