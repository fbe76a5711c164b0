package io.cachegate.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.Backend;
import io.cachegate.config.Timeouts;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BackendPoolTest {

    private static final URI A = URI.create("http://10.0.0.1:8000");
    private static final URI B = URI.create("http://10.0.0.2:8000");
    private static final URI C = URI.create("http://10.0.0.3:8000");

    @Test
    void pick_roundRobinsOverAllUrls() {
        BackendPool pool = pool(A, B, C);
        List<URI> picks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            picks.add(pool.pick());
        }
        assertThat(picks).containsExactly(A, B, C, A, B, C);
    }

    @Test
    void pick_skipsUnhealthyUrls() {
        BackendPool pool = pool(A, B, C);
        pool.markHealthy(B, false);
        for (int i = 0; i < 10; i++) {
            assertThat(pool.pick()).isNotEqualTo(B);
        }
        pool.markHealthy(B, true);
        List<URI> picks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            picks.add(pool.pick());
        }
        assertThat(picks).contains(B);
    }

    @Test
    void pick_allUnhealthy_stillPicks() {
        BackendPool pool = pool(A, B);
        pool.markHealthy(A, false);
        pool.markHealthy(B, false);
        assertThat(pool.pick()).isIn(A, B);
        assertThat(pool.anyHealthy()).isFalse();
    }

    @Test
    void alternativeTo_neverTheFailedUrl() {
        BackendPool pool = pool(A, B, C);
        for (int i = 0; i < 10; i++) {
            assertThat(pool.alternativeTo(A)).get().isNotEqualTo(A);
        }
    }

    @Test
    void alternativeTo_prefersHealthy_fallsBackToUnhealthy() {
        BackendPool pool = pool(A, B, C);
        pool.markHealthy(B, false);
        for (int i = 0; i < 10; i++) {
            assertThat(pool.alternativeTo(A)).contains(C);
        }
        pool.markHealthy(C, false);
        assertThat(pool.alternativeTo(A)).get().isIn(B, C);
    }

    @Test
    void alternativeTo_singleUrl_isEmpty() {
        assertThat(pool(A).alternativeTo(A)).isEmpty();
    }

    @Test
    void markHealthy_unknownUrl_isIgnored() {
        BackendPool pool = pool(A);
        pool.markHealthy(B, false);
        assertThat(pool.isHealthy(B)).isTrue();
        assertThat(pool.anyHealthy()).isTrue();
    }

    @Test
    void constructor_noUrls_isRejected() {
        assertThatThrownBy(() -> pool()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("main");
    }

    private static BackendPool pool(URI... urls) {
        return new BackendPool(new Backend("main", List.of(urls), List.of("*"), Optional.empty(), 64, 64,
                Timeouts.defaults(), Optional.empty()));
    }
}
