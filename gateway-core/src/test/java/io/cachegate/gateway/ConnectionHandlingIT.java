package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** HTTP/1.1 connection behaviour of the proxy listener: keep-alive, pipelining, Connection: close, timeouts. */
class ConnectionHandlingIT {

    private static final byte[] CHAT =
            "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":3}"
                    .getBytes(StandardCharsets.UTF_8);

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator();

    @Test
    void keepAlive_manyRequestsOnOneConnection_allAnswered() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            for (int i = 0; i < 5; i++) {
                out.write(RawHttp.rawPost("/v1/chat/completions", CHAT, "X-Request-Id: r" + i));
                RawHttp.Response response = RawHttp.read(in);
                assertThat(response.status()).as(response.body()).isEqualTo(200);
                assertThat(response.header("x-request-id")).isEqualTo("r" + i);
            }
        }
    }

    @Test
    void pipelinedRequests_answeredInOrder() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            OutputStream out = socket.getOutputStream();
            byte[] a = RawHttp.rawPost("/v1/chat/completions", CHAT, "X-Request-Id: first");
            byte[] b = RawHttp.rawPost("/v1/completions",
                    "{\"model\":\"llama-3.1-8b\",\"prompt\":\"x\",\"max_tokens\":2}".getBytes(StandardCharsets.UTF_8),
                    "X-Request-Id: second");
            byte[] c = "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Request-Id: third\r\n\r\n".getBytes(StandardCharsets.UTF_8);
            byte[] all = new byte[a.length + b.length + c.length];
            System.arraycopy(a, 0, all, 0, a.length);
            System.arraycopy(b, 0, all, a.length, b.length);
            System.arraycopy(c, 0, all, a.length + b.length, c.length);
            out.write(all);
            out.flush();
            InputStream in = socket.getInputStream();
            RawHttp.Response first = RawHttp.read(in);
            RawHttp.Response second = RawHttp.read(in);
            RawHttp.Response third = RawHttp.read(in);
            assertThat(first.header("x-request-id")).isEqualTo("first");
            assertThat(first.body()).contains("chat.completion");
            assertThat(second.header("x-request-id")).isEqualTo("second");
            assertThat(second.body()).contains("text_completion");
            assertThat(third.header("x-request-id")).isEqualTo("third");
            assertThat(third.body()).contains("llama-3.1-8b");
        }
    }

    @Test
    void moreThanEightPipelinedInOneWrite_eachAnsweredOrRefusedInOrder() throws Exception {
        int count = 12;
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < count; i++) {
            all.write(RawHttp.rawPost("/v1/chat/completions", CHAT, "X-Request-Id: p" + i));
        }
        try (Socket socket = RawHttp.connect(fixture.port())) {
            socket.getOutputStream().write(all.toByteArray());
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            int answered = 0;
            for (int i = 0; i < count; i++) {
                RawHttp.Response response = RawHttp.read(in);
                assertThat(response.header("x-request-id")).isEqualTo("p" + i);
                if (response.status() == 200) {
                    answered++;
                } else {
                    assertThat(response.status()).isEqualTo(429);
                    assertThat(response.body()).contains("too_many_pipelined_requests");
                    assertThat(response.header("retry-after")).isEqualTo("1");
                }
            }
            // The first one and the 8 held behind it are served; only those beyond the bound are refused.
            assertThat(answered).isGreaterThanOrEqualTo(9);
            // And the connection still serves afterwards.
            socket.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions", CHAT, "X-Request-Id: after"));
            RawHttp.Response after = RawHttp.read(in);
            assertThat(after.status()).isEqualTo(200);
            assertThat(after.header("x-request-id")).isEqualTo("after");
        }
    }

    @Test
    void connectionClose_answerThenClose() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            socket.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions", CHAT, "Connection: close"));
            InputStream in = socket.getInputStream();
            RawHttp.Response response = RawHttp.read(in);
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("connection")).isEqualToIgnoringCase("close");
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    @Test
    void streamingAnswer_relayedChunked() throws Exception {
        RawHttp.Response response = RawHttp.exchange(fixture.port(), RawHttp.rawPost("/v1/chat/completions",
                ("{\"model\":\"llama-3.1-8b\",\"stream\":true,\"max_tokens\":5,"
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}").getBytes(StandardCharsets.UTF_8),
                "Connection: close"));
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.header("content-type")).startsWith("text/event-stream");
        assertThat(response.header("x-cache")).isEqualTo("BYPASS");
        assertThat(response.body()).endsWith("data: [DONE]\n\n");
    }

    @Test
    void expectContinueWithHugeBody_is413Json() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 20000000\r\nExpect: 100-continue\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            RawHttp.Response response = RawHttp.read(socket.getInputStream());
            assertThat(response.status()).isEqualTo(413);
            assertThat(response.body()).contains("\"code\":\"request_too_large\"");
        }
    }

    @Test
    void expectContinue_smallBody_isAnswered() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + CHAT.length + "\r\nExpect: 100-continue\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            RawHttp.Response cont = RawHttp.read(in);
            assertThat(cont.status()).isEqualTo(100);
            out.write(CHAT);
            RawHttp.Response response = RawHttp.read(in);
            assertThat(response.status()).as(response.body()).isEqualTo(200);
        }
    }

    @Test
    void idleBackendMidStream_cutsTheClientConnection() throws Exception {
        try (BackendSimulator slow = BackendSimulator.start(SimulatorOptions.defaults().withTpotMs(3000));
             Gateway gw = Gateway.start(TestPolicies.parse(TestPolicies.yaml(List.of(slow.baseUrl()), "2s", "", "")
                     .replace("idle: 2s", "idle: 300ms")))) {
            try (Socket socket = RawHttp.connect(gw.port())) {
                socket.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions",
                        ("{\"model\":\"llama-3.1-8b\",\"stream\":true,\"max_tokens\":5,"
                                + "\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}").getBytes(StandardCharsets.UTF_8)));
                InputStream in = socket.getInputStream();
                assertThat(RawHttp.line(in)).startsWith("HTTP/1.1 200");
                String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                // Truncated: the connection ends without the stream's end, so the client cannot take it as complete.
                assertThat(body).doesNotContain("[DONE]").doesNotEndWith("0\r\n\r\n");
            }
        }
    }

    @Test
    void backendRestart_stalePooledConnection_isRetriedOnAFreshOne() throws Exception {
        BackendSimulator first = BackendSimulator.start(SimulatorOptions.defaults());
        int port = first.port();
        boolean firstClosed = false;
        try (Gateway gw = Gateway.start(TestPolicies.forBackend(List.of(first.baseUrl())))) {
            try (Socket socket = RawHttp.connect(gw.port())) {
                socket.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions", CHAT));
                assertThat(RawHttp.read(socket.getInputStream()).status()).isEqualTo(200);
                first.close(); // the pooled upstream connection is now dead
                firstClosed = true;
                try (BackendSimulator second = BackendSimulator.start(SimulatorOptions.defaults().withPort(port))) {
                    for (int i = 0; i < 3; i++) {
                        socket.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions", CHAT));
                        RawHttp.Response response = RawHttp.read(socket.getInputStream());
                        assertThat(response.status()).as(response.body()).isEqualTo(200);
                    }
                    assertThat(second.stats().completed()).isEqualTo(3);
                }
            }
        } finally {
            if (!firstClosed) {
                first.close(); // BackendSimulator.close() is not idempotent
            }
        }
    }

    @Test
    void listedPassthroughPath_passesThroughToBackend() throws Exception {
        try (Gateway gw = Gateway.start(TestPolicies.parse(TestPolicies.yaml(List.of(fixture.sim().baseUrl()), "2s",
                "  passthrough: [{path: /v1/rerank, methods: [POST]}]", "")))) {
            RawHttp.Response response = RawHttp.exchange(gw.port(), RawHttp.rawPost("/v1/rerank",
                    "{\"model\":\"llama-3.1-8b\"}".getBytes(StandardCharsets.UTF_8), "Connection: close"));
            // The simulator does not know the path: its own 404 comes back through the gateway.
            assertThat(response.status()).isEqualTo(404);
            assertThat(response.header("x-cache")).isEqualTo("BYPASS");
            assertThat(response.body()).contains("/v1/rerank");
        }
    }

    @Test
    void unlistedV1PathOrMethod_is404WithoutReachingTheBackend() throws Exception {
        try (Gateway gw = Gateway.start(TestPolicies.parse(TestPolicies.yaml(List.of(fixture.sim().baseUrl()), "2s",
                "  passthrough: [{path: /v1/rerank, methods: [POST]}]", "")))) {
            long before = fixture.sim().stats().requests();
            for (String raw : List.of(
                    "POST /v1/files HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                    "DELETE /v1/files/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    "DELETE /v1/rerank HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    "POST /v1/load_lora_adapter HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")) {
                RawHttp.Response response = RawHttp.exchange(gw.port(), raw);
                assertThat(response.status()).as(raw).isEqualTo(404);
                assertThat(response.body()).contains("\"code\":\"not_found\"").contains("server.passthrough");
            }
            assertThat(fixture.sim().stats().requests() - before).as("nothing reached the backend").isZero();
        }
    }

    @Test
    void defaultPolicy_forwardsNoOtherV1Path() throws Exception {
        RawHttp.Response response = RawHttp.exchange(fixture.port(), RawHttp.rawPost("/v1/rerank",
                "{\"model\":\"llama-3.1-8b\"}".getBytes(StandardCharsets.UTF_8), "Connection: close"));
        assertThat(response.status()).isEqualTo(404);
        assertThat(response.body()).contains("\"code\":\"not_found\"");
    }
}
