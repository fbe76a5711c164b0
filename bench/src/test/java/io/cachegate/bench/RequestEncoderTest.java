package io.cachegate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestEncoderTest {

    @Test
    void encode_postThroughCodec_writesHeadersAndBody() {
        RequestEncoder encoder = new RequestEncoder(URI.create("http://localhost:9000/prefix/"),
                Map.of("Authorization", "Bearer secret"));
        byte[] body = "{\"stream\":true}".getBytes(StandardCharsets.UTF_8);

        String wire = written(encoder, BenchRequest.post("/v1/chat/completions", body, true));

        assertThat(wire).startsWith("POST /prefix/v1/chat/completions HTTP/1.1\r\n");
        assertThat(wire).containsIgnoringCase("host: localhost:9000\r\n");
        assertThat(wire).containsIgnoringCase("authorization: Bearer secret\r\n");
        assertThat(wire).containsIgnoringCase("content-length: " + body.length + "\r\n");
        assertThat(wire).containsIgnoringCase("content-type: application/json\r\n");
        assertThat(wire).containsIgnoringCase("accept: text/event-stream\r\n");
        assertThat(wire).endsWith("\r\n\r\n{\"stream\":true}");
    }

    @Test
    void encode_getWithoutBody_hasNoContentLength() {
        RequestEncoder encoder = new RequestEncoder(URI.create("http://example.test"), Map.of());

        String wire = written(encoder, new BenchRequest("GET", "/v1/models", null, false));

        assertThat(wire).startsWith("GET /v1/models HTTP/1.1\r\n");
        assertThat(wire).containsIgnoringCase("host: example.test\r\n");
        assertThat(wire).doesNotContainIgnoringCase("content-length");
        assertThat(wire).endsWith("\r\n\r\n");
    }

    @Test
    void encode_userAcceptAndContentType_areKept() {
        RequestEncoder encoder = new RequestEncoder(URI.create("http://h:1"),
                Map.of("Accept", "*/*", "Content-Type", "application/x-test"));

        String wire = written(encoder, BenchRequest.post("/x", new byte[] {'{', '}'}, false));

        assertThat(wire).containsIgnoringCase("accept: */*\r\n").containsIgnoringCase("content-type: application/x-test\r\n");
        assertThat(wire).doesNotContainIgnoringCase("application/json");
    }

    private static String written(RequestEncoder encoder, BenchRequest request) {
        EmbeddedChannel channel = new EmbeddedChannel(new HttpClientCodec());
        try {
            channel.writeOutbound(encoder.encode(request));
            StringBuilder wire = new StringBuilder();
            ByteBuf buf;
            while ((buf = channel.readOutbound()) != null) {
                wire.append(buf.toString(StandardCharsets.UTF_8));
                buf.release();
            }
            return wire.toString();
        } finally {
            channel.finishAndReleaseAll();
        }
    }
}
