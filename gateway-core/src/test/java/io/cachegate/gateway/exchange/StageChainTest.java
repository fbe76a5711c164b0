package io.cachegate.gateway.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.ErrorKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StageChainTest {

    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - name: main
                urls: ["http://replica-a:8000"]
                model_version: "llama@1"
            """);

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final List<String> ran = new ArrayList<>();

    @AfterEach
    void close() {
        exchanges.close();
    }

    private Stage passing(String name) {
        return (x, next) -> {
            ran.add(name);
            next.proceed(x);
        };
    }

    private Stage answering(String name, int status) {
        return (x, next) -> {
            ran.add(name);
            x.finish(status);
        };
    }

    @Test
    void start_runsStagesInOrder_untilOneAnswers() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama", "hi"));
        StageChain chain = StageChain.of(passing("a"), passing("b"), answering("c", 200), passing("d"));

        chain.start(x);

        assertThat(ran).containsExactly("a", "b", "c");
        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
        assertThat(exchanges.requestsFinished("status", "200")).isEqualTo(1);
    }

    @Test
    void start_anInsertedStage_answersBeforeTheRest() {
        // A new capability is one more stage in the list: here a quota that turns the request away.
        Stage quota = (x, next) -> x.retryLater(ErrorKind.QUEUE_FULL, "Tenant quota exceeded", 3);
        StageChain chain = StageChain.of(passing("route"), quota, answering("relay", 200));
        Exchange x = exchanges.chat(Exchanges.chatBody("llama", "hi"));

        chain.start(x);

        Exchanges.Written written = Exchanges.written(x);
        assertThat(ran).containsExactly("route");
        assertThat(written.status()).isEqualTo(429);
        assertThat(written.header("retry-after")).isEqualTo("3");
        assertThat(exchanges.requestsFinished("status", "429")).isEqualTo(1);
    }

    @Test
    void start_clientErrorThrown_isAnsweredOnceWithItsStatus() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama", "hi"));
        Stage bad = (ex, next) -> {
            throw new ApiException(ErrorKind.INVALID_REQUEST, "X-Cache-Tags is malformed");
        };

        StageChain.of(passing("a"), bad, passing("never")).start(x);

        Exchanges.Written written = Exchanges.written(x);
        assertThat(ran).containsExactly("a");
        assertThat(written.status()).isEqualTo(400);
        assertThat(written.body()).contains("X-Cache-Tags is malformed").contains("invalid_request_error");
        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
    }

    @Test
    void start_bugInAStage_answers500WithoutItsMessage() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama", "hi"));
        Stage buggy = (ex, next) -> {
            throw new IllegalStateException("secret internals");
        };

        StageChain.of(buggy).start(x);

        Exchanges.Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(500);
        assertThat(written.body()).doesNotContain("secret internals");
        assertThat(exchanges.requestsFinished("status", "500")).isEqualTo(1);
    }

    @Test
    void start_noStageAnswers_answers500() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama", "hi"));

        StageChain.of(passing("a")).start(x);

        assertThat(Exchanges.written(x).status()).isEqualTo(500);
        assertThat(x.isDone()).isTrue();
    }

    @Test
    void cancel_whileAStageWaits_finishesWith499_andTheStageDoesNotResume() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama", "hi"));
        List<Stage.Next> parked = new ArrayList<>();
        StageChain.of((ex, next) -> parked.add(next), answering("after", 200)).start(x);

        x.cancel();
        parked.get(0).proceed(x); // the lookup it waited on completes after the client left

        assertThat(ran).isEmpty();
        assertThat(x.isDone()).isTrue();
        assertThat(exchanges.requestsFinished("status", "499")).isEqualTo(1);
        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
    }

    @Test
    void cancel_whileAStageHoldsTheExchange_isTheStagesToFinish() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama", "hi"));
        List<String> told = new ArrayList<>();
        StageChain.of((ex, next) -> ex.onCancel(() -> told.add("cancelled"))).start(x);

        x.cancel();
        x.cancel();

        assertThat(told).containsExactly("cancelled");
        assertThat(x.isDone()).as("the holder finishes it when it is safe").isFalse();
        x.finish(499);
        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
    }

    @Test
    void finish_twice_countsTheRequestOnce() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama", "hi"));

        x.finish(200);
        x.finish(502);

        assertThat(exchanges.requestsFinished()).isEqualTo(1);
        assertThat(exchanges.requestsFinished("status", "200")).isEqualTo(1);
        assertThat(exchanges.metrics().inFlight()).isZero();
    }

    /** A stage that can act while a decision is pending (the relay, admission into idle capacity do). */
    private Stage tentative(String name) {
        return new Stage() {
            @Override
            public void handle(Exchange x, Next next) {
                ran.add(name);
                next.proceed(x);
            }

            @Override
            public boolean tentative() {
                return true;
            }
        };
    }

    /** A lookup that decides later: the chain goes on while it is pending. */
    private Stage speculating(Speculation[] started) {
        return (x, next) -> {
            ran.add("lookup");
            started[0] = Speculation.start(x);
            next.proceed(x);
        };
    }

    @Test
    void pendingDecision_theChainParksTheFirstStageThatIsNotTentative_andAMissRunsTheRest() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama", "hi"));
        Speculation[] speculation = new Speculation[1];

        StageChain.of(speculating(speculation), tentative("lead"), passing("follow"), passing("queue")).start(x);

        assertThat(ran).as("parked at the first step that cannot be taken back").containsExactly("lookup", "lead");
        speculation[0].miss();
        assertThat(ran).containsExactly("lookup", "lead", "follow", "queue");
    }

    @Test
    void pendingDecision_aHitDropsWhatTheChainParked() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama", "hi"));
        Speculation[] speculation = new Speculation[1];

        StageChain.of(speculating(speculation), passing("follow"), passing("queue")).start(x);
        speculation[0].hit();

        assertThat(ran).containsExactly("lookup");
    }

    @Test
    void stamps_tellWhichStageHeldTheExchangeAndWhichAnsweredIt() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama", "hi"));
        Stage holding = (ex, next) -> ex.resume(() -> next.proceed(ex)); // a lookup: goes on in a later task

        StageChain.of(passing("a"), holding, answering("b", 200)).start(x);
        Exchanges.runPending(x);

        List<String> seen = new ArrayList<>();
        x.record().stages().forEach((name, spanName, entered, left, held, answered) ->
                seen.add((held ? "held " : answered ? "answered " : "passed ") + (left >= entered)));
        assertThat(seen).containsExactly("passed true", "held true", "answered true");
        assertThat(exchanges.metrics().registry().find("cachegate.stage.duration").functionTimers())
                .as("every stage timed, none by a line of its own").hasSize(3);
    }

    @Test
    void stageTimes_ofAChainAReloadReplaced_goOnInTheSameMeters() {
        Stage a = passing("a");
        Stage b = answering("b", 200);
        StageChain.of(a, b).start(exchanges.chat(Exchanges.chatBody("llama", "one")));
        StageChain.of(a, b).start(exchanges.chat(Exchanges.chatBody("llama", "two"))); // the chain after a reload
        StageChain.of(b).start(exchanges.chat(Exchanges.chatBody("llama", "three"))); // b at another place

        Map<String, Double> visits = new TreeMap<>();
        exchanges.metrics().registry().find("cachegate.stage.duration").functionTimers()
                .forEach(t -> visits.put(t.getId().getTag("stage"), t.count()));
        assertThat(visits).hasSize(2).containsEntry(a.name(), 2.0).containsEntry(b.name(), 3.0);
    }

    @Test
    void stageTimes_ofExchangesFinishedOnSeveralThreads_addUp() throws Exception {
        Stage a = passing("a");
        Stage b = answering("b", 200);
        StageChain first = StageChain.of(a, b);
        StageChain reloaded = StageChain.of(a, b);
        for (int t = 0; t < 3; t++) { // each thread counts in counters of its own; the meter sums them
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 5; i++) {
                    (i % 2 == 0 ? first : reloaded).start(exchanges.chat(Exchanges.chatBody("llama", "q" + i)));
                }
            });
            thread.start();
            thread.join();
        }
        first.start(exchanges.chat(Exchanges.chatBody("llama", "on the test's thread")));

        Map<String, Double> visits = new TreeMap<>();
        Map<String, Double> nanos = new TreeMap<>();
        exchanges.metrics().registry().find("cachegate.stage.duration").functionTimers().forEach(t -> {
            visits.put(t.getId().getTag("stage"), t.count());
            nanos.put(t.getId().getTag("stage"), t.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS));
        });
        assertThat(visits).containsEntry(a.name(), 16.0).containsEntry(b.name(), 16.0);
        assertThat(nanos.get(a.name())).isGreaterThanOrEqualTo(0);
    }
}
