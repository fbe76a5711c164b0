package io.cachegate.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bucket4j.ConsumptionProbe;
import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.UsageTail;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The tap on an exchange's answer, written through the answer as the relay, a hit or the gateway writes it. */
class UsageTapTest {

    /** Records the corrections a tap makes. */
    private static final class Adjustments implements LimitBucket {
        final List<Long> made = new ArrayList<>();

        @Override
        public CompletableFuture<ConsumptionProbe> tryConsume(long tokens) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void adjust(long tokens) {
            made.add(tokens);
        }

        @Override
        public long capacity() {
            return 1000;
        }
    }

    private final Exchanges exchanges = new Exchanges(Exchanges.MEMORY_CACHE_POLICY);
    private final Exchange x = exchanges.unparsed(Exchanges.CHAT, "{}");
    private final Adjustments bucket = new Adjustments();
    private final UsageTap tap = tapOn(x, 100);

    @AfterEach
    void close() {
        exchanges.close();
    }

    /** A tap on {@code on}'s answer, after the tail it reads (as the quota stage puts it on). */
    private UsageTap tapOn(Exchange on, long estimate) {
        UsageTap usage = new UsageTap(bucket, estimate, UsageTail.of(on), on.answer());
        on.addTap(usage);
        return usage;
    }

    private void content(String piece) {
        x.answer().content(new DefaultHttpContent(Unpooled.wrappedBuffer(piece.getBytes(StandardCharsets.UTF_8))));
    }

    /** The backend's answer, relayed. */
    private void answer(int status, String... pieces) {
        x.answer().head(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status)),
                Answer.Source.BACKEND);
        for (String piece : pieces) {
            content(piece);
        }
        x.answer().end(LastHttpContent.EMPTY_LAST_CONTENT);
        tap.finished();
        Exchanges.written(x);
    }

    @Test
    void json_usageReplacesTheEstimate() {
        answer(200, "{\"choices\":[{\"message\":{\"content\":\"a \\\"usage\\\" word\"}}],",
                "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":30,\"total_tokens\":42},\"x\":1}");

        assertThat(bucket.made).containsExactly(42L - 100);
    }

    @Test
    void sse_theFinalUsageChunkCounts_notTheNullsBefore() {
        answer(200, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}],\"usage\":null}\n\n",
                "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":90,\"completion_tokens\":60}}\n\n",
                "data: [DONE]\n\n");

        assertThat(bucket.made).containsExactly(150L - 100);
    }

    @Test
    void sse_withoutUsage_keepsTheEstimate() {
        answer(200, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}],\"usage\":null}\n\n", "data: [DONE]\n\n");

        assertThat(bucket.made).isEmpty();
    }

    @Test
    void noBackendAnswer_orAnErrorStatus_givesTheEstimateBack() {
        tap.finished();
        assertThat(bucket.made).containsExactly(-100L);

        Exchange failedX = exchanges.unparsed(Exchanges.CHAT, "{}");
        UsageTap failed = tapOn(failedX, 70);
        failedX.answer().head(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST),
                Answer.Source.BACKEND);
        failedX.answer().end(LastHttpContent.EMPTY_LAST_CONTENT);
        failed.finished();
        Exchanges.written(failedX);
        assertThat(bucket.made).containsExactly(-100L, -70L);
    }

    @Test
    void hitOrFollowersAnswer_withUsage_givesTheEstimateBack() {
        String withUsage = "{\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":30,\"total_tokens\":42}}";
        x.answer().whole(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Exchanges.buffer(withUsage)), Answer.Source.CACHE);
        tap.finished();
        Exchanges.written(x);

        Exchange follower = exchanges.unparsed(Exchanges.CHAT, "{}");
        UsageTap followed = tapOn(follower, 70);
        follower.answer().head(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK),
                Answer.Source.COALESCED);
        follower.answer().end(new DefaultLastHttpContent(Exchanges.buffer(withUsage)));
        followed.finished();
        Exchanges.written(follower);

        assertThat(bucket.made).as("a tokens limit never charges what no backend generated for the request")
                .containsExactly(-100L, -70L);
    }

    @Test
    void usage_inALongAnswer_foundInTheTail() {
        x.answer().head(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK), Answer.Source.BACKEND);
        content("{\"choices\":[{\"message\":{\"content\":\"" + "x".repeat(40_000) + "\"}}],");
        content("\"usage\":{\"total_tokens\":9000}}");

        assertThat(tap.usage()).isEqualTo(OptionalLong.of(9000));
        Exchanges.written(x);
    }
}
