package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.Poll;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Early refusal: a request the head alone condemns (no or unknown key, unknown path, wrong method, a
 * Content-Length over the limit) is answered right after its head, and its body is never buffered. Many
 * unauthenticated clients trickling near-limit bodies get 401 at once, the gateway's buffer memory does not grow
 * with them, and a client with a key is served meanwhile.
 */
class EarlyRefusalIT {

    private static final int CLIENTS = 100;
    /** Announced by each attacker: just under max_body_bytes (1 MiB), so only the key check can refuse it early. */
    private static final int BODY = 1_000_000;
    private static final int PIECE = 16 * 1024;
    private static final String CHAT =
            "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":3}";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().watched().policy(policy("good-key"));

    /** Tenant acme with {@code key}; max_body_bytes 1 MiB, which the attackers announce just under. */
    private static String policy(String key) {
        return """
                server: {max_body_bytes: 1MiB}
                tenants:
                  - {id: acme, api_keys: [%s]}
                """.formatted(key);
    }

    private static void write(String key) throws Exception {
        fixture.rewrite(policy(key));
    }

    @Test
    void unauthenticatedLargeBodies_refusedAtTheHead_memoryFlat_goodClientServed() throws Exception {
        ByteBufAllocatorMetric allocator = ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric();
        long before = used(allocator);
        AtomicLong peak = new AtomicLong(before);
        AtomicBoolean sampling = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                peak.accumulateAndGet(used(allocator), Math::max);
                sleep(5);
            }
        });
        sampler.start();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        List<Future<Attack>> attacks = new ArrayList<>();
        try {
            for (int i = 0; i < CLIENTS; i++) {
                String auth = i % 2 == 0 ? "" : "Authorization: Bearer wrong-key-" + i + "\r\n";
                attacks.add(pool.submit(() -> attack(auth)));
            }
            int good = RawHttp.post(fixture.port(), "/v1/chat/completions", CHAT, "Authorization", "Bearer good-key")
                    .statusCode();
            long slowest = 0;
            long bodyBytesSent = 0;
            for (Future<Attack> f : attacks) {
                Attack a = f.get(60, TimeUnit.SECONDS);
                assertThat(a.status).isEqualTo(401);
                assertThat(a.body).contains("invalid_api_key").doesNotContain("wrong-key");
                slowest = Math.max(slowest, a.millisAfterHead);
                bodyBytesSent += a.bodyBytesSent;
            }
            sampling.set(false);
            sampler.join();
            long growth = peak.get() - before;
            System.out.printf("early refusal: %d unauthenticated clients announcing %d-byte bodies: all 401, slowest "
                            + "%d ms after its head; %d body bytes sent in all; gateway buffer memory peak growth %d KiB; "
                            + "client with a key: %d%n",
                    CLIENTS, BODY, slowest, bodyBytesSent, growth / 1024, good);
            assertThat(good).isEqualTo(200);
            assertThat(slowest).as("answered right after the head, not after the body").isLessThan(5_000);
            // Buffering the bodies would hold ~CLIENTS x what each sent (~100 MB); a refusal holds none of it, only
            // the reads in flight as their bytes are dropped: 2-7 MiB on a quiet machine, 17.4 MiB once with two
            // cores busy elsewhere (reads pile up between the loop's turns), so the bound is a third of buffering.
            assertThat(growth).isLessThan(32L * 1024 * 1024);
        } finally {
            sampling.set(false);
            pool.shutdownNow();
        }
    }

    private record Attack(int status, String body, long millisAfterHead, long bodyBytesSent) {
    }

    /** Sends a head and one piece of body, reads the answer, then trickles more body until the gateway hangs up. */
    private static Attack attack(String auth) throws IOException {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] piece = new byte[PIECE];
            java.util.Arrays.fill(piece, (byte) 'a');
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + auth
                    + "Content-Length: " + BODY + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            long start = System.nanoTime();
            out.write(piece);
            RawHttp.Response response = RawHttp.read(in);
            long millis = (System.nanoTime() - start) / 1_000_000;
            long sent = PIECE;
            try {
                while (sent < BODY - PIECE) {
                    out.write(piece);
                    sent += PIECE;
                    sleep(10);
                }
            } catch (IOException expected) {
                // the gateway closed the connection: the rest of the body is never read
            }
            return new Attack(response.status(), response.body(), millis, sent);
        }
    }

    @Test
    void refusalAfterAPipelinedRequest_answeredInOrder_thenClosed() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            String good = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good-key\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + CHAT.length() + "\r\n\r\n" + CHAT;
            String keyless = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + CHAT.length() + "\r\n\r\n" + CHAT;
            socket.getOutputStream().write((good + keyless + good).getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            assertThat(RawHttp.read(in).status()).isEqualTo(200);
            RawHttp.Response refused = RawHttp.read(in);
            assertThat(refused.status()).isEqualTo(401);
            assertThat(refused.header("connection")).isEqualToIgnoringCase("close");
            assertThat(in.read()).as("nothing read after a refused body").isEqualTo(-1);
        }
    }

    @Test
    void bodilessRefusals_keepTheConnection() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            String good = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good-key\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + CHAT.length() + "\r\n\r\n" + CHAT;
            socket.getOutputStream().write(("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /nowhere HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good-key\r\n\r\n"
                    + "DELETE /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good-key\r\n\r\n"
                    + good).getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            assertThat(RawHttp.read(in).status()).isEqualTo(401);
            assertThat(RawHttp.read(in).status()).isEqualTo(404);
            RawHttp.Response wrongMethod = RawHttp.read(in);
            assertThat(wrongMethod.status()).isEqualTo(405);
            assertThat(wrongMethod.header("allow")).isNotNull();
            assertThat(RawHttp.read(in).status()).isEqualTo(200);
        }
    }

    @Test
    void contentLengthOverTheLimit_is413AtTheHead() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                    + "Authorization: Bearer good-key\r\nContent-Length: 5000000\r\n\r\n{")
                    .getBytes(StandardCharsets.ISO_8859_1));
            RawHttp.Response response = RawHttp.read(socket.getInputStream());
            assertThat(response.status()).isEqualTo(413);
            assertThat(response.body()).contains("request_too_large");
        }
    }

    @Test
    void keyAddedByReload_acceptedAtTheHead() throws Exception {
        assertThat(keyOnly("later-key")).isEqualTo(401);
        write("later-key");
        fixture.gateway().reload();
        assertThat(Poll.until(java.time.Duration.ofSeconds(10), () -> keyOnly("later-key") == 200)).isTrue();
        assertThat(keyOnly("good-key")).isEqualTo(401);
        write("good-key");
        fixture.gateway().reload();
        assertThat(Poll.until(java.time.Duration.ofSeconds(10), () -> keyOnly("good-key") == 200)).isTrue();
    }

    private static int keyOnly(String key) {
        try {
            return RawHttp.post(fixture.port(), "/v1/chat/completions", CHAT, "Authorization", "Bearer " + key)
                    .statusCode();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static long used(ByteBufAllocatorMetric metric) {
        return metric.usedDirectMemory() + metric.usedHeapMemory();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
