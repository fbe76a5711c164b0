package io.cachegate.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bucket4j.ConsumptionProbe;
import io.cachegate.gateway.exchange.UsageTail;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

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

    private final Adjustments bucket = new Adjustments();
    private final UsageTail tail = new UsageTail();
    private final UsageTap tap = new UsageTap(bucket, 100, tail);

    /** As the exchange's taps see a piece: the tail is fed first, then this tap. */
    private void content(String piece) {
        tail.feed(Unpooled.wrappedBuffer(piece.getBytes(StandardCharsets.UTF_8)));
        tap.onContent(Unpooled.wrappedBuffer(piece.getBytes(StandardCharsets.UTF_8)));
    }

    private void answer(int status, String... pieces) {
        tap.onHead(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status)));
        for (String piece : pieces) {
            content(piece);
        }
        tap.onComplete();
        tap.finished();
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

        UsageTap failed = new UsageTap(bucket, 70, new UsageTail());
        failed.onHead(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST));
        failed.onComplete();
        failed.finished();
        assertThat(bucket.made).containsExactly(-100L, -70L);
    }

    @Test
    void usage_inALongAnswer_foundInTheTail() {
        tap.onHead(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        content("{\"choices\":[{\"message\":{\"content\":\"" + "x".repeat(40_000) + "\"}}],");
        content("\"usage\":{\"total_tokens\":9000}}");

        assertThat(tap.usage()).isEqualTo(OptionalLong.of(9000));
    }
}
