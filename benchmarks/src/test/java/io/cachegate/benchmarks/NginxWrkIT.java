package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code bench compare}'s nginx and wrk, for real, against a stub upstream (the JDK's HTTP server standing in
 * for the simulator): the generated three-site configuration passes {@code nginx -t} and serves, the constant
 * site answers the very bytes, the cache site answers a repeat from its cache, and a one-second wrk run through
 * the generated Lua script is parsed. Skipped when nginx or wrk is not installed ({@code .ci/run} need not install them).
 */
class NginxWrkIT {

    private static final byte[] ANSWER = "{\"id\":\"x\",\"choices\":[{\"message\":{\"content\":\"it's $5\\nok\"}}]}"
            .getBytes(StandardCharsets.UTF_8);

    @Test
    void nginxSites_andWrk_measureTheSameRequest() throws Exception {
        Optional<String> nginx = SetupCommands.find("nginx");
        Optional<String> wrk = SetupCommands.find("wrk");
        assumeTrue(nginx.isPresent() && wrk.isPresent(), "nginx and wrk are not installed");
        AtomicInteger upstreamCalls = new AtomicInteger();
        HttpServer upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        upstream.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody(); OutputStream out = exchange.getResponseBody()) {
                in.readAllBytes();
                upstreamCalls.incrementAndGet();
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, ANSWER.length);
                out.write(ANSWER);
            }
        });
        upstream.start();
        try (BenchChildren children = new BenchChildren("nginx-it", new ChildLauncher("unused.Main"), "")) {
            Files.setPosixFilePermissions(children.dir(), PosixFilePermissions.fromString("rwxr-xr-x"));
            int cachePort = LocalProcesses.freePort();
            int constantPort = LocalProcesses.freePort();
            NginxReference.start(nginx.get(), children, upstream.getAddress().getPort(), List.of(
                    new NginxReference.Site(NginxReference.Kind.CACHE, cachePort),
                    new NginxReference.Site(NginxReference.Kind.CONSTANT, constantPort)), ANSWER);
            LocalProcesses.awaitPort(cachePort);
            LocalProcesses.awaitPort(constantPort);
            URI cache = URI.create("http://127.0.0.1:" + cachePort);
            URI constant = URI.create("http://127.0.0.1:" + constantPort);
            byte[] body = BenchCompareCommand.requestBody();
            HttpClient http = BenchScrapes.client();

            assertThat(post(http, constant, body).body()).isEqualTo(ANSWER);
            assertThat(post(http, cache, body).headers().firstValue("x-cache-status")).hasValue("MISS");
            HttpResponse<byte[]> repeat = post(http, cache, body);
            assertThat(repeat.headers().firstValue("x-cache-status")).hasValue("HIT");
            assertThat(repeat.body()).isEqualTo(ANSWER);
            assertThat(upstreamCalls.get()).isEqualTo(1);

            Path script = Wrk.write(children.dir(), "constant", Wrk.script(ChatRequests.PATH, body,
                    Map.of("x-test", "1")));
            Wrk.Result r = new Wrk(wrk.get(), 1).run(constant.resolve(ChatRequests.PATH), script, 2,
                    Duration.ofSeconds(1));
            assertThat(r.requests()).isPositive();
            assertThat(r.errors()).isZero();
            assertThat(r.p50Ms()).isPositive().isLessThanOrEqualTo(r.p99Ms());
            assertThat(upstreamCalls.get()).isEqualTo(1); // the constant site never calls upstream
        } finally {
            upstream.stop(0);
        }
    }

    private static HttpResponse<byte[]> post(HttpClient http, URI target, byte[] body)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(target.resolve(ChatRequests.PATH)).timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }
}
