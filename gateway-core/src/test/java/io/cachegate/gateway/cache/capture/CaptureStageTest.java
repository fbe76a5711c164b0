package io.cachegate.gateway.cache.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.config.Policy;
import io.cachegate.gateway.cache.CacheKeyStage;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.gateway.cache.ScriptedStore;
import io.cachegate.gateway.cache.coalesce.CoalesceStage;
import io.cachegate.gateway.cache.coalesce.Coalescer;
import io.cachegate.gateway.exchange.Answers;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.gateway.exchange.RequestIds;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CaptureStageTest {

    private static final Policy POLICY = Exchanges.MEMORY_CACHE_POLICY;
    private static final String HELLO = Exchanges.chatBody("llama-3.1-8b", "hello");

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final ScriptedStore store = new ScriptedStore(exchanges.ticker());
    private final CacheKeys cacheKeys = new CacheKeys(POLICY, new ModelVersions());
    private final CacheKeyStage keys = new CacheKeyStage(POLICY, cacheKeys);
    private final Coalescer coalescer = new Coalescer(1 << 20);
    private final CoalesceStage coalesce = new CoalesceStage(coalescer);
    private final CaptureStage stage = new CaptureStage(store, cacheKeys, null, () -> false, exchanges.metrics());
    private final RecordingNext next = new RecordingNext();

    @AfterEach
    void close() {
        exchanges.close();
        store.close();
    }

    @Test
    void handle_completeAnswer_isStoredUnderTheRequestsKey() {
        Exchange x = keyed(HELLO);
        exchanges.ticker().advance(Duration.ofSeconds(3));

        stage.handle(x, next);
        relay(x, Answers.HELLO, 200);

        assertThat(next.count(x)).isEqualTo(1);
        CacheKey key = x.get(CacheableRequest.KEY).key();
        Optional<CacheEntry> stored = store.stored(key);
        assertThat(stored).isPresent();
        assertThat(new String(stored.get().body(), StandardCharsets.UTF_8)).isEqualTo(Answers.HELLO);
        assertThat(stored.get().createdAtMillis()).isEqualTo(exchanges.ticker().wallMillis());
        // The gateway's own id, never the client's X-Request-Id, which every later hit would be shown.
        assertThat(stored.get().originRequestId()).isEqualTo(RequestIds.gatewayId(x));
        assertThat(stored.get().promptTokens()).isEqualTo(5);
        assertThat(stored.get().completionTokens()).isEqualTo(2);
        assertThat(exchanges.count("cachegate.cache.entries.written")).isEqualTo(1);
    }

    @Test
    void handle_ledAnswer_staysJoinableUntilItsWriteHasLanded() {
        store.holdPuts();
        Exchange x = keyed(HELLO);
        coalesce.handle(x, (led) -> stage.handle(led, next));

        relay(x, Answers.HELLO, 200);
        assertThat(coalescer.inFlight()).as("a request that missed the store still finds the answer").isEqualTo(1);
        store.landPuts();

        assertThat(coalescer.inFlight()).isZero();
        assertThat(store.stored(x.get(CacheableRequest.KEY).key())).isPresent();
    }

    @Test
    void handle_clientLeavesMidAnswer_nothingIsStored_andTheLedAnswerSettles() {
        Exchange x = keyed(HELLO);
        coalesce.handle(x, (led) -> stage.handle(led, next));

        x.taps().onHead(jsonHead(200));
        content(x, Answers.HELLO.substring(0, 20));
        x.cancel();

        assertThat(store.puts()).isZero();
        assertThat(coalescer.inFlight()).isZero();
        assertThat(exchanges.requestsFinished("status", "499")).isEqualTo(1);
    }

    @Test
    void handle_answerOverTheBound_isNotStored() {
        Exchange x = keyed(HELLO);
        // A storable document one byte over the bound: nothing but its size keeps it out of the store.
        String skeleton = Answers.chatCompletion("");
        int fill = (int) CaptureStage.MAX_ENTRY_BYTES + 1 - skeleton.length();
        String large = Answers.chatCompletion("a".repeat(fill));
        assertThat(large.length()).isEqualTo(CaptureStage.MAX_ENTRY_BYTES + 1);

        stage.handle(x, next);
        relay(x, large, 200);

        assertThat(store.puts()).isZero();
        assertThat(exchanges.count("cachegate.cache.entries.written")).isZero();
    }

    @Test
    void handle_errorAnswer_isNotStored() {
        Exchange x = keyed(HELLO);

        stage.handle(x, next);
        relay(x, "{\"error\":{\"message\":\"overloaded\"}}", 503);

        assertThat(store.puts()).isZero();
    }

    @Test
    void handle_bypass_proceedsWithoutATap() {
        Exchange x = exchanges.chat(HELLO); // not keyed

        stage.handle(x, next);
        relay(x, Answers.HELLO, 200);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(store.puts()).isZero();
    }

    private Exchange keyed(String body) {
        Exchange x = exchanges.chat(body);
        keys.handle(x, new RecordingNext());
        assertThat(x.get(CacheableRequest.KEY)).as("cacheable").isNotNull();
        return x;
    }

    /** The answer as the relay feeds the exchange's taps, in 64 KiB pieces, then the exchange's end. */
    private static void relay(Exchange x, String body, int status) {
        x.taps().onHead(jsonHead(status));
        for (int at = 0; at < body.length(); at += 65_536) { // the tests' bodies are ASCII: chars are bytes
            ByteBuf piece = Exchanges.buffer(body.substring(at, Math.min(body.length(), at + 65_536)));
            try {
                x.taps().onContent(piece);
            } finally {
                piece.release();
            }
        }
        x.taps().onComplete();
        x.finish(status);
    }

    private static HttpResponse jsonHead(int status) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        return head;
    }

    private static void content(Exchange x, String piece) {
        ByteBuf buf = Exchanges.buffer(piece);
        try {
            x.taps().onContent(buf);
        } finally {
            buf.release();
        }
    }
}
