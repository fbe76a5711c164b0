package io.cachegate.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The read timeouts on the event loop's clock (the embedded channel's, moved by hand): each phase expires exactly at
 * its own deadline although the one pending check is re-armed lazily, and an answer being written is never cut.
 * The ITs ({@code SlowClientsIT}) drive the same handler through real sockets.
 */
class ReadTimeoutsTest {

    private static final Duration HEAD = Duration.ofSeconds(10);
    private static final Duration BODY = Duration.ofSeconds(30);
    private static final Duration IDLE = Duration.ofSeconds(60);

    private final GatewayMetrics metrics = new GatewayMetrics();
    private final ReadTimeouts timeouts = new ReadTimeouts(new ServerSettings.Connections(HEAD, BODY, IDLE, 100, 100),
            metrics);
    private final EmbeddedChannel channel = new EmbeddedChannel();

    ReadTimeoutsTest() {
        channel.freezeTime();   // only advance() moves the clock: deadlines to the millisecond
        channel.pipeline().addLast(timeouts.bytes(), timeouts);
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        metrics.close();
    }

    @Test
    void idleConnection_closedAtTheIdleTimeout_notAtAnEarlierCheck() {
        advance(IDLE.minusMillis(1));
        assertThat(channel.isOpen()).isTrue();
        advance(Duration.ofMillis(2));
        assertThat(channel.isOpen()).isFalse();
        assertThat(channel.<Object>readOutbound()).as("an idle connection is closed without a word").isNull();
    }

    @Test
    void headStartedLateInTheIdleTime_gets408AtItsOwnDeadline() {
        advance(Duration.ofSeconds(55));
        firstBytes();
        advance(HEAD.minusMillis(1));   // 64.999 s: past the idle timeout, but a head is in progress
        assertThat(channel.isOpen()).isTrue();
        advance(Duration.ofMillis(2));
        assertTimedOut();
    }

    @Test
    void slowBody_gets408AtTheBodyTimeoutAfterItsHead() {
        firstBytes();
        advance(Duration.ofSeconds(9));
        channel.writeInbound(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/chat/completions"));
        advance(BODY.minusMillis(1));   // 39 s in: past the head's deadline, the body's not yet
        assertThat(channel.isOpen()).isTrue();
        advance(Duration.ofMillis(2));
        assertTimedOut();
    }

    @Test
    void answerInProgress_neverCut_andTheIdleTimeCountsFromItsEnd() {
        wholeRequest();
        advance(Duration.ofMinutes(10));
        assertThat(channel.isOpen()).as("a slow answer is not cut").isTrue();
        answer();
        advance(IDLE.minusMillis(1));
        assertThat(channel.isOpen()).isTrue();
        advance(Duration.ofMillis(2));
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void keepAliveRequests_eachMoveTheDeadline_overFarMoreThanOneIdleTimeout() {
        for (int i = 0; i < 20; i++) {
            advance(Duration.ofSeconds(50));   // 1,100 s in all, each gap under the idle timeout
            wholeRequest();
            advance(Duration.ofSeconds(5));
            answer();
        }
        assertThat(channel.isOpen()).isTrue();
        advance(IDLE.plusMillis(1));
        assertThat(channel.isOpen()).isFalse();
    }

    private void firstBytes() {
        channel.writeInbound(Unpooled.copiedBuffer("POST /v1/chat", StandardCharsets.US_ASCII));
        channel.inboundMessages().clear();
    }

    private void wholeRequest() {
        firstBytes();
        channel.writeInbound(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/chat/completions"),
                LastHttpContent.EMPTY_LAST_CONTENT);
        channel.inboundMessages().clear();
    }

    private void answer() {
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        channel.releaseOutbound();
    }

    private void advance(Duration by) {
        channel.advanceTimeBy(by.toNanos(), TimeUnit.NANOSECONDS);
        channel.runPendingTasks();
    }

    private void assertTimedOut() {
        FullHttpResponse response = channel.readOutbound();
        assertThat(response).as("a 408 before the close").isNotNull();
        assertThat(response.status().code()).isEqualTo(408);
        response.release();
        assertThat(channel.isOpen()).isFalse();
    }
}
