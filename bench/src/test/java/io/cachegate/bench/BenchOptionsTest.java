package io.cachegate.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

    private static final URI TARGET = URI.create("http://127.0.0.1:8080");
    private static final RequestSource SOURCE = RequestSources.generated(GeneratorSpec.defaults());

    @Test
    void builder_defaults_areClosedLoopWithWarmup() {
        BenchOptions options = BenchOptions.builder(TARGET, SOURCE).build();

        assertThat(options.mode()).isEqualTo(BenchOptions.Mode.CLOSED);
        assertThat(options.connections()).isEqualTo(16);
        assertThat(options.duration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.warmup()).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.progress()).isFalse();
        assertThat(options.headers()).isEmpty();
    }

    @Test
    void constructor_specifiedTenArguments_usesAutomaticThreadsAndBacklog() {
        BenchOptions options = new BenchOptions(TARGET, BenchOptions.Mode.OPEN, 4, 100, Duration.ofSeconds(1),
                Duration.ZERO, SOURCE, Map.of("Authorization", "Bearer k"), Duration.ofSeconds(2), false);

        assertThat(options.ioThreads()).isZero();
        assertThat(options.maxBacklog()).isZero();
        assertThat(options.effectiveIoThreads()).isBetween(1, 4);
        assertThat(options.effectiveMaxBacklog()).isEqualTo(200);
    }

    @Test
    void constructor_badValues_namesEveryField() {
        assertThatThrownBy(() -> BenchOptions.builder(URI.create("ftp://x"), null)
                .openLoop(0, 0).duration(Duration.ZERO).warmup(Duration.ofSeconds(-1))
                .requestTimeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("target")
                .hasMessageContaining("source")
                .hasMessageContaining("connections")
                .hasMessageContaining("ratePerSecond")
                .hasMessageContaining("duration")
                .hasMessageContaining("warmup")
                .hasMessageContaining("requestTimeout");
    }

    @Test
    void constructor_closedLoopWithoutRate_isValid() {
        BenchOptions options = BenchOptions.builder(TARGET, SOURCE).closedLoop(2).build();

        assertThat(options.ratePerSecond()).isZero();
    }

    @Test
    void toBuilder_roundTrips() {
        BenchOptions options = BenchOptions.builder(TARGET, SOURCE).openLoop(1_000, 8).header("A", "b")
                .ioThreads(2).maxBacklog(10).progress(true).http2(true).build();

        assertThat(options.toBuilder().build()).isEqualTo(options);
    }

    @Test
    void http2_overHttps_isRefused_itIsCleartextOnly() {
        assertThatThrownBy(() -> BenchOptions.builder(URI.create("https://127.0.0.1:8443"), SOURCE).http2(true).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http2 is cleartext (h2c) only");
    }

    @Test
    void effectiveIoThreads_neverExceedsConnections() {
        BenchOptions options = BenchOptions.builder(TARGET, SOURCE).closedLoop(1).ioThreads(8).build();

        assertThat(options.effectiveIoThreads()).isEqualTo(1);
    }

    @Test
    void modeParse_anyCase_parses() {
        assertThat(BenchOptions.Mode.parse("Open")).isEqualTo(BenchOptions.Mode.OPEN);
        assertThatThrownBy(() -> BenchOptions.Mode.parse("half")).hasMessageContaining("closed or open");
    }
}
