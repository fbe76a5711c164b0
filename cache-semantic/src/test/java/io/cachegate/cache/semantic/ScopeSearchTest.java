package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.TestVectors.NOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scope too large to compare every vector of, over three segments: searched by scanning its sign codes and
 * comparing the vectors of the nearest by code of all segments.
 */
class ScopeSearchTest {

    private static final int DIMENSION = 128;
    private static final int IN_SCOPE = 1_500;
    /** When the searches run: every hundredth entry has expired by then. */
    private static final long AT = NOW + 2;

    @TempDir
    Path dir;

    private LuceneVectorIndex index;
    private final List<IndexEntry> stored = new ArrayList<>();
    private final Random random = new Random(11);

    @BeforeEach
    void load() throws Exception {
        index = LuceneVectorIndex.open(LuceneIndexOptions.of(dir.resolve("index"), "test-model", DIMENSION)
                .withQueueCapacity(4_096).withRecentCapacity(0).withRefreshInterval(Duration.ofSeconds(1)));
        List<CompletableFuture<Void>> adds = new ArrayList<>();
        for (int i = 0; i < IN_SCOPE + 500; i++) {
            if (i % 700 == 699) {  // a refresh: three segments, each with more of the scope than is compared
                await(CompletableFuture.allOf(adds.toArray(CompletableFuture[]::new)));
                await(index.size());
            }
            String scope = i < IN_SCOPE ? "s" : "other";
            IndexEntry e = i % 100 == 1
                    ? TestVectors.expiring("k" + i, scope, TestVectors.random(random, DIMENSION), NOW + 1)
                    : i % 100 == 2
                    ? TestVectors.labelled("k" + i, scope, TestVectors.random(random, DIMENSION), Set.of("secret"), "")
                    : TestVectors.entry("k" + i, scope, TestVectors.random(random, DIMENSION));
            stored.add(e);
            adds.add(index.add(e));
        }
        await(CompletableFuture.allOf(adds.toArray(CompletableFuture[]::new)));
        assertThat(await(index.size())).isEqualTo(IN_SCOPE + 500);
    }

    @AfterEach
    void close() {
        index.close();
    }

    @Test
    void search_nearQueries_findTheirEntryFirst_withItsExactSimilarity() {
        for (int i = 0; i < IN_SCOPE; i += 7) {
            IndexEntry from = stored.get(i);
            if (!from.expiredAt(AT) && from.labels().isEmpty()) {
                float[] query = near(from.vectorUnsafe(), 0.93);
                List<Neighbour> found = await(index.search("s", query, 10, AT));

                assertThat(found).hasSize(10);
                assertThat(found.get(0).entryKey()).isEqualTo(from.entryKey());
                assertThat(found.get(0).similarity()).isCloseTo(0.93f, within(1e-3f));
                assertThat(found).isSortedAccordingTo(Comparator.comparing(Neighbour::similarity).reversed());
            }
        }
    }

    @Test
    void search_nearQueries_neverReturnExpiredDeletedUnreadableOrOtherScopes() {
        IndexEntry deleted = stored.get(0);
        await(index.delete(deleted.entryKey()));
        for (IndexEntry from : List.of(deleted, stored.get(101), stored.get(102), stored.get(IN_SCOPE + 3))) {
            List<Neighbour> found = await(index.search("s", near(from.vectorUnsafe(), 0.99), 10, AT,
                    ReadableLabels.holding(Set.of())));

            assertThat(found).hasSize(10).extracting(Neighbour::entryKey).doesNotContain(from.entryKey());
            assertThat(found).allSatisfy(n -> assertThat(n.similarity()).isLessThan(0.8f));
        }
        // The labelled entry, to a key that holds its label.
        IndexEntry labelled = stored.get(102);
        assertThat(await(index.search("s", near(labelled.vectorUnsafe(), 0.99), 10, AT,
                ReadableLabels.holding(Set.of("secret")))).get(0).entryKey()).isEqualTo(labelled.entryKey());
    }

    @Test
    void search_scopesInterleavedInOneSegment_eachScanReadsItsOwnScopesCodes() throws Exception {
        // Five scopes taking turns, 400 entries each (more than are compared, so each is scanned by code): their
        // codes are held scope by scope, so every scope but the first reads rows that are not its documents' ids.
        try (LuceneVectorIndex interleaved = LuceneVectorIndex.open(LuceneIndexOptions.of(dir.resolve("interleaved"),
                "test-model", DIMENSION).withQueueCapacity(4_096).withRecentCapacity(0))) {
            List<IndexEntry> entries = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                entries.add(TestVectors.entry("i" + i, "scope-" + i % 5, TestVectors.random(random, DIMENSION)));
            }
            await(CompletableFuture.allOf(entries.stream().map(interleaved::add).toArray(CompletableFuture[]::new)));
            assertThat(await(interleaved.size())).isEqualTo(2_000);

            for (int i = 0; i < entries.size(); i += 13) {
                IndexEntry from = entries.get(i);
                List<Neighbour> found = await(interleaved.search(from.scope(), near(from.vectorUnsafe(), 0.93), 10, AT));

                assertThat(found).as("entry %d", i).hasSize(10);
                assertThat(found.get(0).entryKey()).as("entry %d", i).isEqualTo(from.entryKey());
            }
        }
    }

    @Test
    void signCodes_distanceCountsTheDimensionsOfOtherSign() {
        float[] v = TestVectors.random(random, DIMENSION);
        float[] opposite = new float[DIMENSION];
        for (int i = 0; i < DIMENSION; i++) {
            opposite[i] = -v[i];
        }
        float[] oneFlipped = v.clone();
        oneFlipped[70] = -oneFlipped[70];

        assertThat(distance(v, v)).isZero();
        assertThat(distance(v, opposite)).isEqualTo(DIMENSION);
        assertThat(distance(v, oneFlipped)).isEqualTo(1);
        // About the angle's share of pi: 21.6 degrees of 180 at cosine 0.93.
        int sum = 0;
        for (int i = 0; i < 200; i++) {
            sum += distance(v, near(v, 0.93));
        }
        assertThat(sum / 200.0).isCloseTo(DIMENSION * Math.acos(0.93) / Math.PI, within(2.0));
    }

    private static int distance(float[] stored, float[] query) {
        long[] a = SignCodes.of(stored);
        long[] b = SignCodes.of(query);
        int bits = 0;
        for (int w = 0; w < a.length; w++) {
            bits += Long.bitCount(a[w] ^ b[w]);
        }
        return bits;
    }

    /** {@code v} turned by a random direction to {@code cosine}. */
    private float[] near(float[] v, double cosine) {
        float[] noise = TestVectors.random(random, DIMENSION);
        double along = 0;
        for (int i = 0; i < DIMENSION; i++) {
            along += noise[i] * v[i];
        }
        float[] orthogonal = new float[DIMENSION];
        for (int i = 0; i < DIMENSION; i++) {
            orthogonal[i] = (float) (noise[i] - along * v[i]);
        }
        orthogonal = TestVectors.normalise(orthogonal);
        double sin = Math.sqrt(1 - cosine * cosine);
        float[] q = new float[DIMENSION];
        for (int i = 0; i < DIMENSION; i++) {
            q[i] = (float) (cosine * v[i] + sin * orthogonal[i]);
        }
        return q;
    }

    private static <T> T await(CompletableFuture<T> future) {
        return future.orTimeout(60, TimeUnit.SECONDS).join();
    }
}
