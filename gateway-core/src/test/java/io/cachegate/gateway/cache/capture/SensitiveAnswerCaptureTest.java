package io.cachegate.gateway.cache.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.sensitive.SensitiveDataDetector;
import io.cachegate.gateway.telemetry.trace.RequestTrace;
import io.cachegate.gateway.cache.AnswerScreen;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.cache.ScriptedStore;
import io.cachegate.gateway.exchange.Answers;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.testkit.FakeTicker;
import io.micrometer.core.instrument.Counter;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The capture's sensitive-answer check (the simulator cannot echo a secret, so the tap is tested here): a
 * sensitive answer to a clean request is served but not stored, or on an {@code allow} route stored without the
 * semantic write-back; a clean answer is stored and written back as before.
 */
class SensitiveAnswerCaptureTest {

    private static final CacheKey KEY = new CacheKey("default", "llama@1", "b".repeat(64));
    private static final String SECRET_ANSWER = Answers.chatCompletion(
            "Use the key AKIAIOSFODNN7EXAMPLE with your secret.");
    private static final String STREAMED_SECRET = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\","
            + "\"created\":1,\"model\":\"llama-3.1-8b\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
            + "\"content\":\"Mail bob@example.com\"},\"finish_reason\":null}]}\n\n"
            + "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"llama-3.1-8b\","
            + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

    private final FakeTicker ticker = new FakeTicker();
    private final GatewayMetrics metrics = new GatewayMetrics();
    private final ScriptedStore store = new ScriptedStore(ticker);
    private final AtomicInteger settled = new AtomicInteger();
    private final AtomicInteger writtenBack = new AtomicInteger();

    @AfterEach
    void close() {
        store.close();
        metrics.close();
    }

    @Test
    void onComplete_sensitiveAnswer_noStoreRoute_isNotStored_countedAndSettled() {
        AnswerCapture capture = capture(false);

        feed(capture, "application/json", SECRET_ANSWER);
        capture.onComplete();

        assertThat(store.puts()).isZero();
        assertThat(writtenBack).hasValue(0);
        assertThat(settled).hasValue(1);
        assertThat(sensitiveAnswers()).isEqualTo(1);
    }

    @Test
    void onComplete_sensitiveStreamedAnswer_isNotStored() {
        AnswerCapture capture = capture(false);

        feed(capture, "text/event-stream", STREAMED_SECRET);
        capture.onComplete();

        assertThat(store.puts()).isZero();
        assertThat(sensitiveAnswers()).isEqualTo(1);
    }

    @Test
    void onComplete_sensitiveAnswer_allowRoute_isStoredButNotWrittenBack() {
        AnswerCapture capture = capture(true);

        feed(capture, "application/json", SECRET_ANSWER);
        capture.onComplete();

        assertThat(store.stored(KEY)).isPresent();
        assertThat(writtenBack).as("the semantic index never receives it").hasValue(0);
        assertThat(settled).hasValue(1);
    }

    @Test
    void onComplete_cleanAnswer_isStoredAndWrittenBack() {
        AnswerCapture capture = capture(false);

        feed(capture, "application/json", Answers.HELLO);
        capture.onComplete();

        assertThat(store.stored(KEY)).isPresent();
        assertThat(writtenBack).hasValue(1);
        assertThat(sensitiveAnswers()).isZero();
    }

    private double sensitiveAnswers() {
        Counter counter = metrics.registry().find("cachegate.cache.bypass").tag("reason", "sensitive_answer").counter();
        return counter == null ? 0 : counter.count();
    }

    private AnswerCapture capture(boolean allowRoute) {
        AnswerCapture.Target target = new AnswerCapture.Target(store, KEY, Duration.ofHours(1), Set.of(),
                new EntryAccess(Set.of(), Set.of(), false, ""), "req-1", Set.of("stop")).afterStore(entry -> writtenBack.incrementAndGet());
        AnswerScreen screen = new AnswerScreen(SensitiveDataDetector.builtIn(), allowRoute, metrics, "req-1");
        return new AnswerCapture(target, 1 << 20, metrics, ticker, outcome -> settled.incrementAndGet(), screen, RequestTrace.OFF);
    }

    private static void feed(AnswerCapture capture, String contentType, String body) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        capture.onHead(head);
        ByteBuf buf = Exchanges.buffer(body);
        try {
            capture.onContent(buf);
        } finally {
            buf.release();
        }
    }
}
