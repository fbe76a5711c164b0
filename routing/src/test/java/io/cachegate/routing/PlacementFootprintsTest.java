package io.cachegate.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PlacementFootprintsTest {

    private static final long T0 = 1_000_000_000L;

    @Test
    void placed_movesTheKeysFootprintToItsLatestReplica() {
        PlacementFootprints f = new PlacementFootprints(3);
        f.placed(7, 0, 1_000, T0);
        f.placed(8, 0, 500, T0);
        assertThat(f.footprint(0)).isEqualTo(1_500);
        // Moved, and longer (a conversation's later turn): counted once, at the most tokens seen.
        f.placed(7, 2, 1_200, T0 + 1);
        assertThat(f.footprint(0)).isEqualTo(500);
        assertThat(f.footprint(2)).isEqualTo(1_200);
        assertThat(f.replicaOf(7, T0 + 2)).isEqualTo(2);
        // A shorter prompt under the same key keeps the most seen.
        f.placed(7, 2, 100, T0 + 3);
        assertThat(f.footprint(2)).isEqualTo(1_200);
    }

    @Test
    void replicaOf_keyUnusedForTheWindow_forgottenAndUncounted() {
        PlacementFootprints f = new PlacementFootprints(2);
        f.placed(1, 0, 1_000, T0);
        f.placed(2, 1, 1_000, T0 + PlacementFootprints.WINDOW_NANOS / 2);
        assertThat(f.replicaOf(1, T0 + PlacementFootprints.WINDOW_NANOS)).isEqualTo(0);
        assertThat(f.replicaOf(1, T0 + PlacementFootprints.WINDOW_NANOS + 1)).isEqualTo(-1);
        assertThat(f.footprint(0)).isZero();
        assertThat(f.footprint(1)).isEqualTo(1_000);
        assertThat(f.replicaOf(2, T0 + PlacementFootprints.WINDOW_NANOS + 1)).isEqualTo(1);
    }

    @Test
    void placed_beyondMaxKeys_dropsTheLeastRecentlyPlaced() {
        PlacementFootprints f = new PlacementFootprints(1);
        for (int k = 0; k <= PlacementFootprints.MAX_KEYS; k++) {
            f.placed(k, 0, 10, T0);
        }
        f.placed(1, 0, 10, T0); // placed again: now the most recent
        f.placed(-1, 0, 10, T0);
        assertThat(f.replicaOf(0, T0)).isEqualTo(-1);
        assertThat(f.replicaOf(2, T0)).isEqualTo(-1);
        assertThat(f.replicaOf(1, T0)).isZero();
        assertThat(f.footprint(0)).isEqualTo(10L * PlacementFootprints.MAX_KEYS);
    }
}
