package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.nonce;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.Poll;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Partial request bodies a valid key can make the gateway hold (issue 28, item 2): the tenant's limits apply at the
 * head, before any of the body is read; the bytes bodies hold while they arrive are bounded per tenant (429) and
 * in all (503); every byte charged is given back. Small numbers: bodies of 8 KiB, a tenant's share 20 KiB, the
 * whole 48 KiB. Each test has tenants of its own, so a test never finds another's bodies in its budget.
 */
class BufferedBodiesIT {

    private static final int BODY = 8 * 1024;
    private static final Pattern BUFFERED = Pattern.compile("(?m)^cachegate_body_buffered_bytes (\\S+)$");

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            server: {max_body_bytes: 1MiB, body_timeout: 2s, max_buffered_body_bytes: 48KiB,
                     max_buffered_body_bytes_per_tenant: 20KiB}
            tenants:
              - {id: pinned, api_keys: [k-pinned], limits: {max_concurrent: 2}}
              - {id: paced, api_keys: [k-paced], limits: {requests_per_second: 1, burst: 1}}
            %s""".formatted(tenants("share", "chunked", "g1", "g2", "g3", "g4", "h2", "leaks")));

    /** One tenant a name, id {@code id} and key {@code k-id}, as list entries of {@code tenants:}. */
    private static String tenants(String... ids) {
        StringBuilder tenants = new StringBuilder();
        for (String id : ids) {
            tenants.append("  - {id: ").append(id).append(", api_keys: [k-").append(id).append("]}\n");
        }
        return tenants.toString();
    }

    @Test
    void maxConcurrent2_thirdPartialBody_refusedAtHead() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            held.add(partial("k-pinned", BODY));
            held.add(partial("k-pinned", BODY));
            awaitBuffered(2L * BODY);
            try (Socket third = partial("k-pinned", BODY)) {
                // Without the head check the third body is read and held until body_timeout: no answer in time.
                third.setSoTimeout(1_000);
                RawHttp.Response refused = RawHttp.read(third.getInputStream());
                assertThat(refused.status()).isEqualTo(429);
                assertThat(refused.headers()).containsKey("retry-after");
                assertThat(refused.body()).contains("rate_limit_exceeded").contains("limit 2 at once");
                assertThat(third.getInputStream().read()).isEqualTo(-1); // its body is not read: the connection ends
            }
            assertThat(buffered()).isEqualTo(2L * BODY); // the third took nothing
        } finally {
            closeAll(held);
        }
        // The places come back with the connections: the key is served again.
        assertThat(Poll.until(Duration.ofSeconds(5), () -> status("k-pinned") == 200)).isTrue();
    }

    @Test
    void requestRate_refusedAtHead_beforeTheBody() throws Exception {
        assertThat(status("k-paced")).isEqualTo(200); // the one request of its burst
        try (Socket next = partial("k-paced", BODY)) {
            next.setSoTimeout(1_000);
            RawHttp.Response refused = RawHttp.read(next.getInputStream());
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.headers()).containsKey("retry-after");
            assertThat(refused.body()).contains("Rate limit reached for requests");
        }
    }

    @Test
    void tenantOverItsShare_429_othersServed() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            held.add(partial("k-share", BODY));
            held.add(partial("k-share", BODY)); // 16 KiB of its 20
            awaitBuffered(2L * BODY); // both charged before the third: connections are read on different loops
            try (Socket third = partial("k-share", BODY)) {
                third.setSoTimeout(1_000);
                RawHttp.Response refused = RawHttp.read(third.getInputStream());
                assertThat(refused.status()).isEqualTo(429);
                assertThat(refused.headers()).containsEntry("retry-after", "1");
                assertThat(refused.body()).contains("buffered_bodies_limit_exceeded").contains("20480 bytes");
            }
            assertThat(status("k-g1")).isEqualTo(200); // another tenant is served meanwhile
        } finally {
            closeAll(held);
        }
        awaitBuffered(0);
    }

    @Test
    void chunkedBodyGrowingPastTheShare_429_midBody() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Authorization: Bearer k-chunked\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            byte[] chunk = ("1000\r\n" + " ".repeat(4096) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
            // Room doubles 8, 16, 32 KiB: the growth past 16 KiB would pass the 20 KiB share.
            for (int i = 0; i < 5; i++) {
                out.write(chunk);
                out.flush();
            }
            RawHttp.Response refused = RawHttp.read(socket.getInputStream());
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.body()).contains("buffered_bodies_limit_exceeded");
        }
        awaitBuffered(0);
    }

    @Test
    void gatewayBudgetSpent_503() throws Exception {
        awaitBuffered(0);
        List<Socket> held = new ArrayList<>();
        try {
            held.add(partial("k-g1", 16 * 1024));
            held.add(partial("k-g2", 16 * 1024));
            held.add(partial("k-g3", 16 * 1024)); // 48 KiB: all of it
            awaitBuffered(48 * 1024);
            try (Socket fourth = partial("k-g4", BODY)) {
                fourth.setSoTimeout(1_000);
                RawHttp.Response refused = RawHttp.read(fourth.getInputStream());
                assertThat(refused.status()).isEqualTo(503);
                assertThat(refused.headers()).containsKey("retry-after");
                assertThat(refused.body()).contains("buffered_bodies_limit_exceeded").contains("49152 bytes");
            }
        } finally {
            closeAll(held);
        }
        awaitBuffered(0);
        assertThat(status("k-g4")).isEqualTo(200);
        assertThat(fixture.gateway().metrics().scrape())
                .contains("cachegate_body_budget_refused_total{scope=\"global\"}");
    }

    @Test
    void http2_maxConcurrentAtHead_andBudgetPerStream() throws Exception {
        awaitBuffered(0);
        try (RawH2 h2 = RawH2.connect(fixture.port())) {
            String length = Integer.toString(BODY);
            h2.headers(1, "POST", "/v1/chat/completions", false, "content-type", "application/json",
                    "authorization", "Bearer k-pinned", "content-length", length);
            h2.data(1, "{".getBytes(StandardCharsets.UTF_8), false);
            h2.headers(3, "POST", "/v1/chat/completions", false, "content-type", "application/json",
                    "authorization", "Bearer k-pinned", "content-length", length);
            h2.data(3, "{".getBytes(StandardCharsets.UTF_8), false);
            h2.headers(5, "POST", "/v1/chat/completions", false, "content-type", "application/json",
                    "authorization", "Bearer k-pinned", "content-length", length);
            h2.data(5, "{".getBytes(StandardCharsets.UTF_8), false);
            RawH2.Answer third = h2.await(5).get(5);
            assertThat(third.status()).isEqualTo("429");
            assertThat(third.text()).contains("limit 2 at once");
            for (int stream : new int[] {7, 9, 11}) {
                h2.headers(stream, "POST", "/v1/chat/completions", false, "content-type", "application/json",
                        "authorization", "Bearer k-h2", "content-length", length);
                h2.data(stream, "{".getBytes(StandardCharsets.UTF_8), false);
            }
            // Two 8 KiB bodies of k-h2 fit its 20 KiB share; the third does not.
            RawH2.Answer overShare = h2.await(11).get(11);
            assertThat(overShare.status()).isEqualTo("429");
            assertThat(overShare.text()).contains("buffered_bodies_limit_exceeded");
        }
        awaitBuffered(0);
    }

    @Test
    void everyWayABodyEnds_givesItsBytesBack() throws Exception {
        awaitBuffered(0);
        assertThat(status("k-leaks")).isEqualTo(200); // whole
        Socket left = partial("k-leaks", BODY);
        awaitBuffered(BODY);
        left.close(); // the client leaves mid-body
        awaitBuffered(0);
        try (Socket slow = partial("k-leaks", BODY)) {
            assertThat(RawHttp.read(slow.getInputStream()).status()).isEqualTo(408); // body_timeout
            awaitBuffered(0);
        }
        try (Socket big = RawHttp.connect(fixture.port())) { // over max_body_bytes by its length: refused at the head
            big.getOutputStream().write(head("k-leaks", 2 << 20));
            assertThat(RawHttp.read(big.getInputStream()).status()).isEqualTo(413);
        }
        awaitBuffered(0);
        assertThat(fixture.gateway().metrics().scrape()).contains("cachegate_body_buffered_bytes 0.0");
    }

    /** A connection that sent a head declaring {@code length} bytes and the first byte of the body. */
    private static Socket partial(String key, int length) throws IOException {
        Socket socket = RawHttp.connect(fixture.port());
        OutputStream out = socket.getOutputStream();
        out.write(head(key, length));
        out.write('{');
        out.flush();
        return socket;
    }

    private static byte[] head(String key, int length) {
        return ("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer " + key + "\r\nContent-Length: " + length + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A whole request of {@code key}: its status. */
    private static int status(String key) {
        try {
            return RawHttp.post(fixture.port(), "/v1/chat/completions", chat("buffered " + nonce()),
                    "Authorization", "Bearer " + key).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static long buffered() {
        Matcher m = BUFFERED.matcher(fixture.gateway().metrics().scrape());
        assertThat(m.find()).as("cachegate_body_buffered_bytes in /metrics").isTrue();
        return (long) Double.parseDouble(m.group(1));
    }

    private static void awaitBuffered(long bytes) {
        assertThat(Poll.until(Duration.ofSeconds(5), () -> buffered() == bytes))
                .as("bytes buffered: %d, expected %d", buffered(), bytes).isTrue();
    }

    private static void closeAll(List<Socket> sockets) throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
    }
}
