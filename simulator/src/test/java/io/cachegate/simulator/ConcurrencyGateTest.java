package io.cachegate.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConcurrencyGateTest {

    private final List<String> granted = new ArrayList<>();

    private ConcurrencyGate.Waiter waiter(String name) {
        return () -> granted.add(name);
    }

    @Test
    void tryAcquire_overLimit_queuesThenRejects() {
        ConcurrencyGate gate = new ConcurrencyGate(1, 1);

        assertThat(gate.tryAcquire(waiter("a"))).isEqualTo(ConcurrencyGate.Admission.GRANTED);
        assertThat(gate.tryAcquire(waiter("b"))).isEqualTo(ConcurrencyGate.Admission.QUEUED);
        assertThat(gate.tryAcquire(waiter("c"))).isEqualTo(ConcurrencyGate.Admission.REJECTED);
        assertThat(gate.active()).isEqualTo(1);
        assertThat(gate.queued()).isEqualTo(1);
    }

    @Test
    void release_withWaiters_handsSlotOverInFifoOrder() {
        ConcurrencyGate gate = new ConcurrencyGate(1, 10);
        gate.tryAcquire(waiter("a"));
        gate.tryAcquire(waiter("b"));
        gate.tryAcquire(waiter("c"));

        gate.release();
        gate.release();

        assertThat(granted).containsExactly("b", "c");
        assertThat(gate.active()).isEqualTo(1);
        gate.release();
        assertThat(gate.active()).isZero();
    }

    @Test
    void withdraw_queuedWaiter_isNeverGranted() {
        ConcurrencyGate gate = new ConcurrencyGate(1, 10);
        gate.tryAcquire(waiter("a"));
        ConcurrencyGate.Waiter b = waiter("b");
        gate.tryAcquire(b);

        assertThat(gate.withdraw(b)).isTrue();
        gate.release();

        assertThat(granted).isEmpty();
        assertThat(gate.active()).isZero();
        assertThat(gate.withdraw(b)).isFalse();
    }
}
