package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.Poll;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URISyntaxException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replays the committed corpus of malformed raw requests ({@code src/test/resources/malformed/*.http}, written by
 * its {@code generate.py}: smuggling, bad chunks, obs-fold, control characters, bad methods, versions and targets,
 * Host and Authorization tricks, bad JSON, wrong content types, oversize and mismatched bodies) against one
 * running gateway, each on its own connection. Each must be answered with a 4xx within a bounded time — no 5xx, no
 * hang, no stack trace or Java type in the body — and the gateway must still serve a MISS and then a HIT with the
 * right body afterwards.
 */
class MalformedCorpusIT {

    /** Every answer within this; the slowest expected is a short body cut off by body_timeout (300 ms). */
    private static final int ANSWER_WITHIN_MILLIS = 5_000;
    private static final Pattern LEAK = Pattern.compile(
            "Exception|\\bat [a-z]+\\.[a-z]|java\\.|javax\\.|io\\.netty|com\\.fasterxml|io\\.cachegate|\\.java:");
    private static final String CHAT =
            "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"after the corpus\"}],"
                    + "\"temperature\":0}";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            server: {max_body_bytes: 64KiB, header_timeout: 300ms, body_timeout: 300ms, idle_timeout: 2s}
            backends:
              - {name: main, timeouts: {connect: 1s, first_byte: 2s, idle: 2s, total: 10s}}
            tenants:
              - {id: corpus, api_keys: [sk-corpus]}
            """);

    private enum Outcome { CLIENT_ERROR, SERVER_ERROR, OTHER_STATUS, CLOSED_UNANSWERED, HANG, LEAKED }

    private record Result(Path file, Outcome outcome, String detail) {
    }

    @Test
    void everyMalformedRequest_is4xx_noLeak_noHang_thenTheGatewayStillServes() throws Exception {
        List<Path> files = corpus();
        assertThat(files).hasSizeGreaterThanOrEqualTo(200);
        List<Result> results = new ArrayList<>();
        for (Path file : files) {
            results.add(replay(file, Files.readAllBytes(file)));
        }
        long clientErrors = count(results, Outcome.CLIENT_ERROR);
        long serverErrors = count(results, Outcome.SERVER_ERROR);
        long hangs = count(results, Outcome.HANG);
        System.out.printf("malformed corpus: %d tried, %d answered 4xx, %d 5xx, %d hangs, %d other (closed unanswered "
                        + "%d, other status %d, leaked %d)%n", files.size(), clientErrors, serverErrors, hangs,
                files.size() - clientErrors - serverErrors - hangs, count(results, Outcome.CLOSED_UNANSWERED),
                count(results, Outcome.OTHER_STATUS), count(results, Outcome.LEAKED));
        List<String> failures = results.stream().filter(r -> r.outcome != Outcome.CLIENT_ERROR)
                .map(r -> r.file.getFileName() + ": " + r.outcome + " " + r.detail).toList();
        assertThat(failures).isEmpty();

        HttpResponse<String> miss = chat();
        assertThat(miss.statusCode()).isEqualTo(200);
        assertThat(miss.headers().firstValue("X-Cache")).hasValue("MISS");
        // The answer is stored just after it is sent: the next identical request is a hit once the write landed.
        AtomicReference<HttpResponse<String>> last = new AtomicReference<>();
        Poll.until(java.time.Duration.ofSeconds(5), () -> {
            last.set(uncheckedChat());
            return last.get().headers().firstValue("X-Cache").orElse("").equals("HIT");
        });
        HttpResponse<String> hit = last.get();
        assertThat(hit.statusCode()).isEqualTo(200);
        assertThat(hit.headers().firstValue("X-Cache")).hasValue("HIT");
        assertThat(hit.body()).isEqualTo(miss.body()).contains("chat.completion");
    }

    private static Result replay(Path file, byte[] raw) {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            socket.setSoTimeout(ANSWER_WITHIN_MILLIS);
            try {
                socket.getOutputStream().write(raw);
                socket.getOutputStream().flush();
            } catch (IOException refusedMidway) {
                // the gateway may answer and close before the whole request is written; its answer is read below
            }
            InputStream in = socket.getInputStream();
            RawHttp.Response response;
            try {
                response = RawHttp.read(in);
            } catch (SocketTimeoutException e) {
                return new Result(file, Outcome.HANG, "no answer within " + ANSWER_WITHIN_MILLIS + " ms");
            } catch (IOException e) {
                return new Result(file, Outcome.CLOSED_UNANSWERED, e.getMessage());
            }
            String detail = response.status() + " " + response.body();
            if (LEAK.matcher(response.body()).find()) {
                return new Result(file, Outcome.LEAKED, detail);
            }
            if (response.status() >= 500) {
                return new Result(file, Outcome.SERVER_ERROR, detail);
            }
            return new Result(file, response.status() >= 400 ? Outcome.CLIENT_ERROR : Outcome.OTHER_STATUS, detail);
        } catch (IOException e) {
            return new Result(file, Outcome.CLOSED_UNANSWERED, e.toString());
        }
    }

    private static HttpResponse<String> chat() throws Exception {
        return RawHttp.post(fixture.port(), "/v1/chat/completions", CHAT, "Authorization", "Bearer sk-corpus");
    }

    private static HttpResponse<String> uncheckedChat() {
        try {
            return chat();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static long count(List<Result> results, Outcome outcome) {
        return results.stream().filter(r -> r.outcome == outcome).count();
    }

    private static List<Path> corpus() throws IOException, URISyntaxException {
        Path dir = Path.of(Objects.requireNonNull(MalformedCorpusIT.class.getResource("/malformed")).toURI());
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".http")).sorted().toList();
        }
    }
}
