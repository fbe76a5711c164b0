package io.cachegate.gateway.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An exchange's answer on its way out: the taps see what its writer made, the exchange finishes as the last piece
 * passes them, a rewrite replaces a successful body, the headers stages set go on every head.
 */
class AnswerTest {

    private final Exchanges exchanges = new Exchanges(Exchanges.MEMORY_CACHE_POLICY);
    private final Exchange x = exchanges.unparsed(Exchanges.CHAT, "{}");
    private final Answer answer = x.answer();

    @AfterEach
    void close() {
        exchanges.close();
    }

    private static BodyRewrite.Rewriter rewriter(String body) {
        return rewriter(CompletableFuture.completedFuture(body == null ? null : body.getBytes(StandardCharsets.UTF_8)));
    }

    private static BodyRewrite.Rewriter rewriter(CompletableFuture<byte[]> body) {
        return new BodyRewrite.Rewriter() {
            @Override
            public CompletableFuture<byte[]> body() {
                return body;
            }

            @Override
            public String failure() {
                return "could not merge";
            }
        };
    }

    private static HttpResponse head(HttpResponseStatus status) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status);
        head.headers().set("x-request-id", "r1");
        HttpUtil.setTransferEncodingChunked(head, true);
        return head;
    }

    private static DefaultFullHttpResponse whole(String body) {
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Exchanges.buffer(body));
    }

    @Test
    void whole_tapsSeeItAndTheExchangeFinishesAfterThem() {
        RecordingTap heard = new RecordingTap();
        x.addTap(heard);
        x.addTap(new RecordingTap() {
            @Override
            public void onComplete() {
                assertThat(x.isDone()).as("the taps hear the end before the exchange finishes").isFalse();
            }
        });

        answer.whole(whole("a hit"), Answer.Source.CACHE);

        assertThat(heard.outline()).containsExactly("head 200", "content", "complete");
        assertThat(heard.body()).isEqualTo("a hit");
        assertThat(answer.source()).isEqualTo(Answer.Source.CACHE);
        assertThat(x.isDone()).isTrue();
        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
        Written written = Exchanges.written(x);
        assertThat(written.body()).isEqualTo("a hit");
        assertThat(written.open()).as("kept alive").isTrue();
    }

    @Test
    void abortedTap_hearsNothingMore() {
        RecordingTap heard = new RecordingTap();
        x.addTap(heard);

        x.fail(ErrorKind.INVALID_REQUEST, "bad", null);

        assertThat(heard.events()).containsExactly("abort");
        assertThat(Exchanges.written(x).status()).isEqualTo(400);
    }

    @Test
    void abortTentativeTaps_onlyTheTapsPutOnWhileALookupWasPending() {
        RecordingTap before = new RecordingTap();
        x.addTap(before);
        Speculation speculation = Speculation.start(x);
        RecordingTap during = new RecordingTap();
        x.addTap(during);
        speculation.hit();

        answer.abortTentativeTaps();
        answer.whole(whole("the hit"), Answer.Source.CACHE);

        assertThat(before.outline()).containsExactly("head 200", "content", "complete");
        assertThat(before.body()).isEqualTo("the hit");
        assertThat(during.events()).containsExactly("abort");
        Exchanges.written(x);
    }

    @Test
    void discard_theTapsHearTheRest_theClientNothing() {
        RecordingTap heard = new RecordingTap();
        x.addTap(heard);
        answer.head(head(HttpResponseStatus.OK), Answer.Source.BACKEND);
        answer.flush();
        Exchanges.written(x);

        answer.discard();
        ByteBuf piece = Exchanges.buffer("rest");
        ChannelFuture written = answer.content(new DefaultHttpContent(piece));
        answer.end(LastHttpContent.EMPTY_LAST_CONTENT);

        assertThat(heard.outline()).containsExactly("head 200", "content", "complete");
        assertThat(heard.body()).isEqualTo("rest");
        assertThat(written.isSuccess()).as("done for the writer, which reads on").isTrue();
        assertThat(piece.refCnt()).isZero();
        assertThat(Exchanges.written(x).nothing()).isTrue();
    }

    @Test
    void header_onTheFirstHead_replacingTheWritersOfThatName() {
        x.responseHeader("x-ratelimit-limit-requests", "5");
        HttpResponse relayed = head(HttpResponseStatus.OK);
        relayed.headers().set("X-RateLimit-Limit-Requests", "10000").set("openai-processing-ms", "120");

        answer.head(relayed, Answer.Source.BACKEND);
        answer.end(LastHttpContent.EMPTY_LAST_CONTENT);

        Written written = Exchanges.written(x);
        assertThat(written.head().headers().getAll("x-ratelimit-limit-requests")).containsExactly("5");
        assertThat(written.header("x-request-id")).isEqualTo("r1");
        assertThat(written.header("openai-processing-ms")).isEqualTo("120");
    }

    @Test
    void header_onAnError() {
        x.responseHeader("x-ratelimit-limit-requests", "5");

        x.retryLater(ErrorKind.RATE_LIMITED_REQUESTS, "slow down", 2);

        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(429);
        assertThat(written.header("x-ratelimit-limit-requests")).isEqualTo("5");
        assertThat(written.header("retry-after")).isEqualTo("2");
        assertThat(written.header("x-cache")).isEqualTo("BYPASS");
    }

    @Test
    void end_notKeptAlive_closesTheConnection() {
        x.failUnexpectedly();

        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(500);
        assertThat(written.header("connection")).isEqualTo("close");
        assertThat(written.open()).isFalse();
    }

    @Test
    void rewrite_holdsTheHeadDropsTheBodyAndWritesTheNewOne() {
        answer.rewrite(rewriter("{\"merged\":true}"));
        x.responseHeader("x-cache-items", "1/2");
        ChannelFuture head = answer.head(head(HttpResponseStatus.OK), Answer.Source.BACKEND);
        ByteBuf piece = Exchanges.buffer("{\"backend\":");
        ChannelFuture middle = answer.content(new DefaultHttpContent(piece));
        answer.flush();

        assertThat(head.isSuccess()).as("held, but done for the relay, which reads on").isTrue();
        assertThat(middle.isSuccess()).isTrue();
        assertThat(piece.refCnt()).as("dropped and released").isZero();
        assertThat(Exchanges.written(x).nothing()).as("nothing leaves before the end").isTrue();

        ChannelFuture last = answer.end(new DefaultLastHttpContent(Exchanges.buffer("1}")));

        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.header("x-request-id")).isEqualTo("r1");
        assertThat(written.header("x-cache-items")).as("the held head gets the exchange's headers").isEqualTo("1/2");
        assertThat(HttpUtil.isTransferEncodingChunked(written.head())).isFalse();
        assertThat(written.header("content-length")).isEqualTo("15");
        assertThat(written.body()).isEqualTo("{\"merged\":true}");
        assertThat(written.complete()).isTrue();
        assertThat(last.isSuccess()).isTrue();
        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
    }

    @Test
    void rewrite_bodyMadeLater_theConnectionsNextExchangeWaitsForIt() {
        CompletableFuture<byte[]> later = new CompletableFuture<>();
        answer.rewrite(rewriter(later));
        answer.head(head(HttpResponseStatus.OK), Answer.Source.BACKEND);
        ChannelFuture last = answer.end(new DefaultLastHttpContent(Exchanges.buffer("{}")));

        assertThat(x.isDone()).as("counted as the backend's answer ends").isTrue();
        assertThat(exchanges.finishedCount(x)).as("a pipelined request waits behind the body").isZero();
        assertThat(Exchanges.written(x).nothing()).isTrue();
        assertThat(last.isDone()).isFalse();

        later.complete("{\"merged\":1}".getBytes(StandardCharsets.UTF_8));
        Exchanges.runPending(x);

        Written written = Exchanges.written(x);
        assertThat(written.header("content-length")).isEqualTo("12");
        assertThat(written.body()).isEqualTo("{\"merged\":1}");
        assertThat(last.isSuccess()).isTrue();
        assertThat(exchanges.finishedCount(x)).as("then the next exchange goes").isEqualTo(1);
    }

    @Test
    void rewrite_withoutBody_answers502() {
        answer.rewrite(rewriter((String) null));
        answer.head(head(HttpResponseStatus.OK), Answer.Source.BACKEND);
        answer.end(new DefaultLastHttpContent(Exchanges.buffer("{}")));

        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(502);
        assertThat(written.body()).contains("could not merge").contains("upstream_bad_response");
    }

    @Test
    void rewrite_errorAnswer_passesUnchanged() {
        answer.rewrite(rewriter("{\"merged\":true}"));
        answer.head(head(HttpResponseStatus.BAD_REQUEST), Answer.Source.BACKEND);
        answer.end(new DefaultLastHttpContent(Exchanges.buffer("{\"error\":{}}")));

        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(400);
        assertThat(written.body()).isEqualTo("{\"error\":{}}");
    }

    @Test
    void rewrite_wholeAnswer_passesUnchanged() {
        answer.rewrite(rewriter("{\"merged\":true}"));

        answer.whole(whole("a hit"), Answer.Source.CACHE);

        assertThat(Exchanges.written(x).body()).isEqualTo("a hit");
    }

    @Test
    void rewrite_answerAbortedWhileTheHeadIsHeld_theNextExchangeGoes() {
        answer.rewrite(rewriter("{\"merged\":true}"));
        answer.head(head(HttpResponseStatus.OK), Answer.Source.BACKEND);

        answer.abort(); // the backend failed mid-answer
        x.finish(200);

        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
        assertThat(Exchanges.written(x).nothing()).isTrue();
    }
}
