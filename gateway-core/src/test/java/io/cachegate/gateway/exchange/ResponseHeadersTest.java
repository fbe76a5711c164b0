package io.cachegate.gateway.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;

/** Headers set on an exchange reach the head of its answer, whoever writes it, and only that one. */
class ResponseHeadersTest {

    private final EmbeddedChannel channel = new EmbeddedChannel(ResponseHeaders.INSTANCE,
            new ChannelInboundHandlerAdapter());

    private HttpResponse write(String... headers) {
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        for (int i = 0; i + 1 < headers.length; i += 2) {
            response.headers().add(headers[i], headers[i + 1]);
        }
        channel.pipeline().lastContext().writeAndFlush(response);
        return channel.readOutbound();
    }

    @Test
    void write_addsThePendingHeaders_keepsTheOthers_andOnlyOnce() {
        ResponseHeaders.add(channel.pipeline().lastContext(), "x-ratelimit-limit-requests", "5");

        HttpResponse first = write("x-request-id", "r1", "retry-after", "1");
        HttpResponse second = write("x-request-id", "r2");

        assertThat(first.headers().get("x-ratelimit-limit-requests")).isEqualTo("5");
        assertThat(first.headers().get("x-request-id")).isEqualTo("r1");
        assertThat(first.headers().get("retry-after")).isEqualTo("1");
        assertThat(second.headers().contains("x-ratelimit-limit-requests")).as("the next answer's own").isFalse();
    }

    @Test
    void write_pendingHeader_replacesTheWrittenOneOfThatName() {
        ResponseHeaders.add(channel.pipeline().lastContext(), "x-ratelimit-limit-requests", "5");

        HttpResponse relayed = write("X-RateLimit-Limit-Requests", "10000", "x-request-id", "r1");

        assertThat(relayed.headers().getAll("x-ratelimit-limit-requests")).containsExactly("5");
        assertThat(relayed.headers().get("x-request-id")).isEqualTo("r1");
    }

    @Test
    void write_nothingPending_leavesTheWrittenHeaders() {
        HttpResponse relayed = write("openai-processing-ms", "120");

        assertThat(relayed.headers().get("openai-processing-ms")).isEqualTo("120");
    }
}
