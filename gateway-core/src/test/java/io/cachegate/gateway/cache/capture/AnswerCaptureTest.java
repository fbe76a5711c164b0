package io.cachegate.gateway.cache.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.UserDigest;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.cache.ScriptedStore;
import io.cachegate.gateway.exchange.Answers;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.testkit.FakeTicker;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The capture tap on its own: its size bound, and that it settles exactly once whatever the answer's end. */
class AnswerCaptureTest {

    private static final CacheKey KEY = new CacheKey("default", "llama@1", "a".repeat(64));
    private static final int SIZE = Answers.HELLO.getBytes(StandardCharsets.UTF_8).length;
    private static final EntryAccess ACCESS = new EntryAccess(Set.of("hr"), Set.of("hr", "finance"), true,
            UserDigest.of("alice"));

    private final FakeTicker ticker = new FakeTicker();
    private final GatewayMetrics metrics = new GatewayMetrics();
    private final ScriptedStore store = new ScriptedStore(ticker);
    private final AtomicInteger settled = new AtomicInteger();

    @AfterEach
    void close() {
        store.close();
        metrics.close();
    }

    @Test
    void onComplete_answerExactlyAtTheBound_isStored_andSettlesOnce() {
        AnswerCapture capture = capture(SIZE);

        feed(capture, Answers.HELLO);
        capture.onComplete();

        assertThat(store.stored(KEY)).isPresent();
        assertThat(settled).hasValue(1);
    }

    @Test
    void onComplete_entryCarriesTheDeclaredLabelsAndTheEndUsersDigest() {
        AnswerCapture capture = capture(SIZE);

        feed(capture, Answers.HELLO);
        capture.onComplete();

        // The declared labels, not all the key holds: a reader needs only what the prompt depended on.
        assertThat(store.stored(KEY).orElseThrow().labels()).containsExactly("hr");
        assertThat(store.stored(KEY).orElseThrow().userDigest()).isEqualTo(UserDigest.of("alice")).hasSize(64);
    }

    @Test
    void onComplete_answerOneByteOverTheBound_isNotStored_andSettlesOnce() {
        AnswerCapture capture = capture(SIZE - 1);

        feed(capture, Answers.HELLO);
        capture.onComplete();

        assertThat(store.puts()).isZero();
        assertThat(settled).hasValue(1);
    }

    @Test
    void onAbort_midAnswer_nothingIsStored_andSettlesOnce() {
        AnswerCapture capture = capture(SIZE);

        capture.onHead(head());
        piece(capture, Answers.HELLO.substring(0, 20));
        capture.onAbort();

        assertThat(store.puts()).isZero();
        assertThat(settled).hasValue(1);
    }

    @Test
    void onComplete_slowWrite_settlesWhenTheWriteLands() {
        store.holdPuts();
        AnswerCapture capture = capture(SIZE);

        feed(capture, Answers.HELLO);
        capture.onComplete();
        assertThat(settled).as("the write is still on its way").hasValue(0);
        store.landPuts();

        assertThat(settled).hasValue(1);
        assertThat(store.stored(KEY)).isPresent();
    }

    @Test
    void onFallback_twice_filesTheAnswerUnderTheLastHopsModelOnly() {
        AnswerCapture.Target base = new AnswerCapture.Target(store, KEY, Duration.ofHours(1), Set.of(), ACCESS,
                "req-1", Set.of("stop"));
        // As CaptureStage keys it: the request with the hop's model, under that backend's version.
        AnswerCapture capture = new AnswerCapture(base.retarget((backend, model) ->
                Optional.of(base.movedTo(hopKey(backend, model)))), SIZE, metrics, ticker, outcome -> settled.incrementAndGet());

        capture.onFallback("small", "llama-3.1-8b");
        capture.onFallback("tiny", "qwen2.5-0.5b");
        feed(capture, Answers.HELLO);
        capture.onComplete();

        assertThat(store.stored(hopKey("tiny", "qwen2.5-0.5b"))).isPresent();
        assertThat(store.stored(hopKey("small", "llama-3.1-8b"))).isEmpty();
        assertThat(store.stored(KEY)).as("never under the requested model's key").isEmpty();
    }

    /** A key of its own for each backend and model. */
    private static CacheKey hopKey(String backend, String model) {
        return new CacheKey("default", backend + "@1", (model.startsWith("qwen") ? "c" : "b").repeat(64));
    }

    private AnswerCapture capture(long maxBytes) {
        AnswerCapture.Target target = new AnswerCapture.Target(store, KEY, Duration.ofHours(1), Set.of(), ACCESS, "req-1",
                Set.of("stop"));
        return new AnswerCapture(target, maxBytes, metrics, ticker, outcome -> settled.incrementAndGet());
    }

    private static void feed(AnswerCapture capture, String body) {
        capture.onHead(head());
        piece(capture, body);
    }

    private static HttpResponse head() {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        return head;
    }

    private static void piece(AnswerCapture capture, String text) {
        ByteBuf buf = Exchanges.buffer(text);
        try {
            capture.onContent(buf);
        } finally {
            buf.release();
        }
    }
}
