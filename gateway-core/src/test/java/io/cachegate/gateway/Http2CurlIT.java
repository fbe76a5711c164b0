package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * curl against the proxy port in cleartext HTTP/2: {@code --http2-prior-knowledge} for answers, hits and a stream,
 * {@code --http2} for the Upgrade dance. Skipped where curl is missing or built without HTTP/2.
 */
class Http2CurlIT {

    private static final Path CURL = Path.of("/usr/bin/curl");

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy(Http2IT.policy(""));

    @BeforeAll
    static void curlWithHttp2() throws Exception {
        assumeThat(Files.isExecutable(CURL)).as("curl is installed at " + CURL).isTrue();
        assumeThat(run("-V")).as("curl -V lists the HTTP2 feature (built with nghttp2)").containsPattern(
                "Features:.* HTTP2( |$)");
    }

    /** curl's output (headers with {@code -i}, then the body), its errors included. */
    private static String run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(CURL.toString(), "-sS"));
        command.addAll(List.of(args));
        Process curl = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = curl.getInputStream().readAllBytes();
        assertThat(curl.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new String(out, StandardCharsets.UTF_8);
    }

    private static String chat(String body, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--http2-prior-knowledge", "-i", "-H",
                "Content-Type: application/json", "-d", body));
        args.addAll(List.of(more));
        args.add("http://127.0.0.1:" + fixture.port() + Http2IT.CHAT);
        return run(args.toArray(String[]::new));
    }

    @Test
    void priorKnowledge_missThenHit() throws Exception {
        String body = CacheCalls.chat("curl h2 " + CacheCalls.nonce());

        String miss = chat(body);
        String hit = chat(body);

        assertThat(miss).startsWith("HTTP/2 200").containsIgnoringCase("x-cache: MISS")
                .contains("\"object\":\"chat.completion\"");
        assertThat(hit).startsWith("HTTP/2 200").containsIgnoringCase("x-cache: HIT");
        assertThat(hit.substring(hit.indexOf("\r\n\r\n"))).isEqualTo(miss.substring(miss.indexOf("\r\n\r\n")));
    }

    @Test
    void priorKnowledge_streamedAnswer_readToTheEnd() throws Exception {
        String out = chat(CacheCalls.chat("curl h2 stream " + CacheCalls.nonce(), "\"stream\":true"), "-N");

        assertThat(out).startsWith("HTTP/2 200").containsIgnoringCase("content-type: text/event-stream")
                .contains("data: {").endsWith("data: [DONE]\n\n");
    }

    @Test
    void upgradeFromHttp11_answersOverHttp2() throws Exception {
        String out = run("--http2", "-i", "http://127.0.0.1:" + fixture.port() + "/v1/models");

        assertThat(out).startsWith("HTTP/1.1 101").contains("HTTP/2 200").contains("\"object\":\"list\"");
    }
}
