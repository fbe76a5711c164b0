package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.config.PolicyException;
import io.cachegate.config.PolicyLoader;
import io.cachegate.gateway.admin.AdminAudit;
import io.cachegate.gateway.admin.ReloadOutcome;
import io.cachegate.gateway.telemetry.log.AuditLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyWatchTest {

    private static final String POLICY = "backends: [{name: main, urls: [\"http://127.0.0.1:9\"]}]\n";

    @TempDir
    Path dir;

    @Test
    void reload_slowOne_answersRunningWithinTheBound_andCallersMeanwhileShareOneReloadAfterIt() throws Exception {
        Path file = dir.resolve("policy.yaml");
        Files.writeString(file, POLICY);
        CountDownLatch release = new CountDownLatch(1);
        StubTarget target = new StubTarget(release);
        try (PolicyWatch watch = new PolicyWatch(file, PolicyLoader.withEnvironment(name -> null), target,
                new AdminAudit(AuditLog.OFF), Duration.ofMillis(200))) {
            long started = System.nanoTime();
            ReloadOutcome slow = watch.reload().get(5, TimeUnit.SECONDS);
            assertThat(slow.outcome()).isEqualTo("running");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));

            // Three callers while the slow one holds the thread: one reload queued behind it, shared by all three.
            var second = watch.reload();
            var third = watch.reload();
            var fourth = watch.reload();
            release.countDown();

            for (var caller : List.of(second, third, fourth)) {
                assertThat(caller.get(5, TimeUnit.SECONDS).outcome()).isEqualTo("applied");
            }
            assertThat(target.offers).as("the slow reload and the one shared after it").isEqualTo(2);
        }
    }

    @Test
    void reload_fileOverTheSizeLimit_isRejectedWithoutParsing() throws Exception {
        Path file = dir.resolve("policy.yaml");
        Files.writeString(file, POLICY + "# " + "x".repeat(1 << 20));
        StubTarget target = new StubTarget(new CountDownLatch(0));
        try (PolicyWatch watch = new PolicyWatch(file, PolicyLoader.withEnvironment(name -> null), target,
                new AdminAudit(AuditLog.OFF), Duration.ofSeconds(5))) {
            ReloadOutcome outcome = watch.reload().get(10, TimeUnit.SECONDS);

            assertThat(outcome.outcome()).isEqualTo("rejected");
            assertThat(outcome.problems()).singleElement().asString()
                    .endsWith("is larger than 1MiB, the most a policy file may be (CACHEGATE_POLICY_MAX_BYTES raises it)");
            assertThat(target.offers).isZero();
        }
    }

    /** Applies every policy offered once {@code release} is open; counts the offers. */
    private static final class StubTarget implements PolicyWatch.Target {

        private final CountDownLatch release;
        volatile int offers;

        StubTarget(CountDownLatch release) {
            this.release = release;
        }

        @Override
        public ReloadOutcome offer(Policy next, boolean sameBytes) {
            offers++; // on the one reload thread
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new ReloadOutcome("applied", 2, List.of(), List.of());
        }

        @Override
        public ReloadOutcome rejected(PolicyException problems) {
            return new ReloadOutcome("rejected", 1, List.of(problems.getMessage().split("\n")), List.of());
        }

        @Override
        public long generation() {
            return 1;
        }
    }
}
