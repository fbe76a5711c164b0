package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Requests that could smuggle a second request or be read differently by another hop: each gets an OpenAI 400 and
 * the connection is closed, so nothing sent after it on the connection is read; the gateway keeps serving others.
 */
class FrontDoorIT {

    private static final String CHAT =
            "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":3}";
    private static final String JSON_LENGTH = "Content-Type: application/json\r\nContent-Length: " + CHAT.length();
    private static final String GOOD = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + JSON_LENGTH
            + "\r\n\r\n" + CHAT;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator();

    @AfterEach
    void gatewayStillServes() throws Exception {
        assertThat(RawHttp.exchange(fixture.port(), GOOD).status()).isEqualTo(200);
    }

    @Test
    void contentLengthWithTransferEncoding_is400AndCloses() throws Exception {
        assertRefusedAndClosed("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
    }

    @Test
    void twoDifferentContentLengths_is400AndCloses() throws Exception {
        assertRefusedAndClosed("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " + CHAT.length()
                + "\r\nContent-Length: 2\r\n\r\n" + CHAT);
    }

    @Test
    void badChunkSize_is400AndClosesWithoutReadingLaterBytes() throws Exception {
        assertRefusedAndClosed("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n" + GOOD);
    }

    @Test
    void transferCodingOtherThanChunked_is400AndCloses() throws Exception {
        assertRefusedAndClosed("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n"
                + "\r\n0\r\n\r\n");
    }

    @Test
    void controlCharacterInHeaderValue_is400AndCloses() throws Exception {
        assertRefusedAndClosed("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Note: a\u0001b\r\n" + JSON_LENGTH
                + "\r\n\r\n" + CHAT);
    }

    @Test
    void controlCharacterInHeaderName_is400AndCloses() throws Exception {
        assertRefusedAndClosed("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX\u0001Note: ab\r\n" + JSON_LENGTH
                + "\r\n\r\n" + CHAT);
    }

    @Test
    void obsFoldedHeader_is400AndCloses() throws Exception {
        assertRefusedAndClosed("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n b\r\n" + JSON_LENGTH
                + "\r\n\r\n" + CHAT);
        assertRefusedAndClosed("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n\tb\r\n"
                + JSON_LENGTH + "\r\n\r\n" + CHAT);
    }

    @Test
    void headRequest_answeredWithoutABody_connectionStillServes() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            socket.getOutputStream().write(("HEAD /v1/models HTTP/1.1\r\nHost: x\r\n\r\n" + GOOD)
                    .getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            String status = RawHttp.line(in);
            assertThat(status).startsWith("HTTP/1.1 ");
            String line;
            while ((line = RawHttp.line(in)) != null && !line.isEmpty()) {
                // the head's headers; no body follows
            }
            RawHttp.Response next = RawHttp.read(in);
            assertThat(next.status()).as(next.body()).isEqualTo(200);
            assertThat(next.body()).contains("chat.completion");
        }
    }

    @Test
    void missingHost_is400AndCloses() throws Exception {
        assertRefusedAndClosed("POST /v1/chat/completions HTTP/1.1\r\n" + JSON_LENGTH + "\r\n\r\n" + CHAT);
    }

    @Test
    void doubledHost_is400AndCloses() throws Exception {
        assertRefusedAndClosed("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nHost: y\r\n" + JSON_LENGTH
                + "\r\n\r\n" + CHAT);
    }

    @Test
    void twoAuthorizationHeaders_is400AndCloses() throws Exception {
        assertRefusedAndClosed("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n"
                + "Authorization: Bearer b\r\n" + JSON_LENGTH + "\r\n\r\n" + CHAT);
    }

    @Test
    void absoluteFormTarget_is400AndCloses() throws Exception {
        assertRefusedAndClosed("POST http://other.example/v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + JSON_LENGTH
                + "\r\n\r\n" + CHAT);
    }

    @Test
    void dotSegments_are400AndClose() throws Exception {
        assertRefusedAndClosed("POST /v1/../sim/stats HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
        assertRefusedAndClosed("POST /v1/%2e%2e/sim/stats HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
        assertRefusedAndClosed("GET /v1/./models HTTP/1.1\r\nHost: x\r\n\r\n");
        assertRefusedAndClosed("DELETE /v1/files/%2E%2E HTTP/1.1\r\nHost: x\r\n\r\n");
    }

    @Test
    void refusalAfterAPipelinedRequest_isAnsweredAfterIt() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            socket.getOutputStream().write((GOOD + "POST /v1/../x HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            assertThat(RawHttp.read(in).status()).isEqualTo(200);
            RawHttp.Response refused = RawHttp.read(in);
            assertThat(refused.status()).isEqualTo(400);
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    private static void assertRefusedAndClosed(String raw) throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            socket.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            RawHttp.Response response = RawHttp.read(in);
            assertThat(response.status()).as(response.body()).isEqualTo(400);
            assertThat(response.body()).contains("\"code\":\"invalid_request\"").doesNotContain("Exception");
            assertThat(response.header("connection")).isEqualToIgnoringCase("close");
            assertThat(in.read()).as("connection closed after the refusal").isEqualTo(-1);
        }
    }
}
