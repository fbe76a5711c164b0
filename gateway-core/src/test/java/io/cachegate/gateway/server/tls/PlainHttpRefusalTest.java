package io.cachegate.gateway.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PlainHttpRefusalTest {

    @Test
    void plainHttp_gets400InPlainText_andTheConnectionCloses() {
        EmbeddedChannel channel = new EmbeddedChannel(new PlainHttpRefusal());

        channel.writeInbound(Unpooled.copiedBuffer("GET /v1/models HTTP/1.1\r\n", StandardCharsets.US_ASCII));

        ByteBuf answer = channel.readOutbound();
        try {
            assertThat(answer.toString(StandardCharsets.UTF_8)).startsWith("HTTP/1.1 400 Bad Request\r\n")
                    .contains("Connection: close").endsWith("\"code\":\"https_required\"}}");
        } finally {
            answer.release();
        }
        assertThat(channel.isOpen()).isFalse();
        assertThat(channel.inboundMessages()).isEmpty();
    }

    @Test
    void tlsRecord_passesOnUntouched_andTheHandlerLeaves() {
        EmbeddedChannel channel = new EmbeddedChannel(new PlainHttpRefusal());
        byte[] clientHello = {0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5};

        channel.writeInbound(Unpooled.wrappedBuffer(clientHello, 0, 3)); // too short to tell yet
        assertThat(channel.inboundMessages()).isEmpty();
        channel.writeInbound(Unpooled.wrappedBuffer(clientHello, 3, clientHello.length - 3));

        ByteBuf passed = channel.readInbound();
        try {
            byte[] bytes = new byte[passed.readableBytes()];
            passed.readBytes(bytes);
            assertThat(bytes).isEqualTo(clientHello);
        } finally {
            passed.release();
        }
        assertThat(channel.pipeline().get(PlainHttpRefusal.class)).isNull();
        assertThat(channel.isOpen()).isTrue();
        channel.finishAndReleaseAll();
    }
}
