package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.TestVectors.NOW;
import static io.cachegate.cache.semantic.TestVectors.axis;
import static io.cachegate.cache.semantic.TestVectors.entry;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RecentEntriesTest {

    private final RecentEntries recent = new RecentEntries(2);

    @Test
    void offer_full_refusesNewKeysButReplacesBufferedOnes() {
        assertThat(recent.offer(entry("a", "s", axis(0)))).isTrue();
        assertThat(recent.offer(entry("b", "s", axis(1)))).isTrue();

        assertThat(recent.offer(entry("c", "s", axis(2)))).isFalse();
        assertThat(recent.offer(entry("a", "s", axis(3)))).isTrue();
        assertThat(recent.size()).isEqualTo(2);
    }

    @Test
    void dropThrough_keepsEntriesOfferedAfterTheSequence() {
        recent.offer(entry("a", "s", axis(0)));
        long written = recent.lastSequence();
        recent.offer(entry("b", "s", axis(1)));

        recent.dropThrough(written);

        assertThat(recent.snapshot().holds("a")).isFalse();
        assertThat(recent.snapshot().holds("b")).isTrue();
    }

    @Test
    void snapshot_isNotChangedByLaterWrites() {
        recent.offer(entry("a", "s", axis(0)));
        RecentEntries.Snapshot before = recent.snapshot();

        recent.remove("a");

        assertThat(before.holds("a")).isTrue();
        assertThat(recent.snapshot().isEmpty()).isTrue();
    }

    @Test
    void merge_dropsStaleSearcherVersionsOfBufferedKeys_nearestFirst_atMostK() {
        recent.offer(entry("moved", "elsewhere", axis(0)));
        recent.offer(entry("new", "s", axis(0)));
        RecentEntries.Snapshot snapshot = recent.snapshot();
        List<Neighbour> buffered = snapshot.search("s", axis(0), 2, NOW, ReadableLabels.any());
        List<Neighbour> lucene = List.of(new Neighbour("moved", 0.99f, "old text", NOW, NOW + 1),
                new Neighbour("old", 0.5f, "x", NOW, NOW + 1), new Neighbour("older", 0.4f, "x", NOW, NOW + 1));

        assertThat(RecentEntries.merge(snapshot, buffered, lucene, 2)).extracting(Neighbour::entryKey)
                .containsExactly("new", "old");
    }

    @Test
    void search_skipsOtherScopesExpiredAndUnreadableEntries() {
        RecentEntries many = new RecentEntries(8);
        many.offer(entry("other-scope", "t", axis(0)));
        many.offer(TestVectors.expiring("expired", "s", axis(0), NOW + 1));
        many.offer(TestVectors.labelled("labelled", "s", axis(0), Set.of("hr"), ""));
        many.offer(entry("plain", "s", axis(1)));

        assertThat(many.snapshot().search("s", axis(0), 5, NOW + 1, ReadableLabels.holding(List.of())))
                .extracting(Neighbour::entryKey).containsExactly("plain");
        assertThat(many.snapshot().search("s", axis(0), 5, NOW + 1, ReadableLabels.holding(List.of("hr"))))
                .extracting(Neighbour::entryKey).containsExactly("labelled", "plain");
    }
}
