package io.cachegate.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The h2c preface switch: the preface turns the pipeline into HTTP/2, other bytes leave HTTP/1.1 as it was. */
class PriorKnowledgeTest {

    private static final String PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

    private final Http2Switch http2 = new Http2Switch(null,
            Exchanges.policy("backends: [{name: main, urls: [\"http://127.0.0.1:1\"]}]").server(), new GatewayMetrics());
    /** Stand-ins for the HTTP/1.1 handlers, under their pipeline names. */
    private final EmbeddedChannel channel = new EmbeddedChannel();

    PriorKnowledgeTest() {
        channel.pipeline().addLast(Http2Switch.PREFACE, new PriorKnowledge(http2));
        for (String name : new String[] {"http", "read-timeouts", "front-door", "head-check", "body-limit", "proxy"}) {
            channel.pipeline().addLast(name, new ChannelInboundHandlerAdapter());
        }
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void preface_switchesToHttp2_andTheHttp1HandlersLeave() {
        channel.writeInbound(bytes(PREFACE));

        assertThat(channel.pipeline().names()).contains("h2").doesNotContain(Http2Switch.PREFACE, "http",
                "read-timeouts", "front-door", "head-check", "body-limit", "proxy");
        ByteBuf settings = channel.readOutbound();
        assertThat(settings.getByte(3)).as("the server's SETTINGS frame").isEqualTo((byte) 0x4);
        settings.release();
    }

    @Test
    void prefaceSplitAcrossReads_isHeldUntilWhole() {
        channel.writeInbound(bytes(PREFACE.substring(0, 10)));

        assertThat(channel.pipeline().names()).contains(Http2Switch.PREFACE, "http").doesNotContain("h2");
        Object passed = channel.readInbound();
        assertThat(passed).isNull();

        channel.writeInbound(bytes(PREFACE.substring(10)));
        assertThat(channel.pipeline().names()).contains("h2").doesNotContain("http");
    }

    @Test
    void http11_leavesThePipelineAsItWas_andPassesTheBytesOn() {
        channel.writeInbound(bytes("POST /v1/chat/completions HTTP/1.1\r\n"));

        assertThat(channel.pipeline().names()).contains("http", "proxy").doesNotContain(Http2Switch.PREFACE, "h2");
        ByteBuf passed = channel.readInbound();
        assertThat(passed.toString(StandardCharsets.US_ASCII)).startsWith("POST ");
        passed.release();
    }

    @Test
    void aLookAlike_thatGoesWrongLate_staysHttp11() {
        channel.writeInbound(bytes("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n"));

        assertThat(channel.pipeline().names()).contains("http").doesNotContain("h2");
        ByteBuf passed = channel.readInbound();
        assertThat(passed.readableBytes()).isEqualTo(24);
        passed.release();
    }

    private static ByteBuf bytes(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }
}
