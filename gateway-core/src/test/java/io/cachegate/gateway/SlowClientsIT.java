package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.SimulatorOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The proxy listener's read timeouts against slow clients: a head or body trickled a byte at a time is cut off
 * with 408 while a normal client is served, an idle keep-alive connection is closed, and an answer streamed for
 * longer than every timeout is never cut. Timeouts are short here (header and body 500 ms, idle 1 s).
 */
class SlowClientsIT {

    private static final int SLOW_CLIENTS = 20;
    private static final long TRICKLE_MILLIS = 100;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture
            // 60 ms per output token: a 40-token stream takes 2.4 s, longer than every timeout below.
            .withSimulator(SimulatorOptions.defaults().withTpotMs(60)).policy("""
            server: {header_timeout: 500ms, body_timeout: 500ms, idle_timeout: 1s}
            backends:
              - {name: main, timeouts: {connect: 1s, first_byte: 2s, idle: 2s, total: 30s}}
            """);

    @Test
    void slowlorisHead_cutOffWith408_whileNormalClientServed() throws Exception {
        byte[] head = "POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nX-Slow: "
                .getBytes(StandardCharsets.ISO_8859_1);
        Figures f = trickle(head);
        System.out.printf("slowloris head: %d connections, %d not cut off, %d closed with 408 (max %d ms after the first "
                        + "byte), normal client %d in %d ms meanwhile%n",
                SLOW_CLIENTS, f.held, f.timedOut, f.slowestCutMillis, f.normalStatus, f.normalMillis);
        assertThat(f.normalStatus).isEqualTo(200);
        assertThat(f.timedOut).isEqualTo(SLOW_CLIENTS);
        assertThat(f.held).isZero();
        assertThat(fixture.gateway().metrics().scrape()).contains("cachegate_connections_timed_out_total{phase=\"header\"}");
    }

    @Test
    void slowlorisBody_cutOffWith408_whileNormalClientServed() throws Exception {
        byte[] head = ("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: 1000\r\n\r\n{").getBytes(StandardCharsets.ISO_8859_1);
        Figures f = trickle(head);
        System.out.printf("slowloris body: %d connections, %d not cut off, %d closed with 408 (max %d ms after the head), "
                        + "normal client %d in %d ms meanwhile%n",
                SLOW_CLIENTS, f.held, f.timedOut, f.slowestCutMillis, f.normalStatus, f.normalMillis);
        assertThat(f.normalStatus).isEqualTo(200);
        assertThat(f.timedOut).isEqualTo(SLOW_CLIENTS);
        assertThat(f.held).isZero();
    }

    @Test
    void idleKeepAlive_closedAfterIdleTimeout() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            InputStream in = socket.getInputStream();
            socket.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions", chat("idle", false, 3)));
            assertThat(RawHttp.read(in).status()).isEqualTo(200);
            long start = System.nanoTime();
            assertThat(in.read()).isEqualTo(-1); // closed by the gateway, without an answer
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(millis).isBetween(800L, 5_000L);
        }
    }

    @Test
    void connectionThatNeverSends_closedAfterIdleTimeout() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void streamedAnswerLongerThanEveryTimeout_completes() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            long start = System.nanoTime();
            socket.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions", chat("stream", true, 40)));
            RawHttp.Response response = RawHttp.read(socket.getInputStream());
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).contains("[DONE]");
            assertThat(millis).isGreaterThan(1_000L); // longer than idle_timeout, and than header + body
        }
    }

    private record Figures(int held, int timedOut, long slowestCutMillis, int normalStatus, long normalMillis) {
    }

    /** Opens the slow clients, each sending {@code head} and then one more byte every 100 ms for up to 3 s. */
    private static Figures trickle(byte[] head) throws Exception {
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < SLOW_CLIENTS; i++) {
                Socket s = RawHttp.connect(fixture.port());
                s.getOutputStream().write(head);
                s.getOutputStream().flush();
                sockets.add(s);
            }
            long start = System.nanoTime();
            int[] status = new int[SLOW_CLIENTS];
            long slowest = 0;
            int normalStatus = 0;
            long normalMillis = 0;
            for (int round = 0; round < 30; round++) {
                for (int i = 0; i < SLOW_CLIENTS; i++) {
                    if (status[i] != 0) {
                        continue;
                    }
                    Socket s = sockets.get(i);
                    if (s.getInputStream().available() > 0) {
                        status[i] = RawHttp.read(s.getInputStream()).status();
                        slowest = Math.max(slowest, (System.nanoTime() - start) / 1_000_000);
                    } else {
                        trickleOne(s.getOutputStream());
                    }
                }
                if (round == 1) { // slow clients are connected and trickling: a normal client now
                    long t = System.nanoTime();
                    HttpResponse<String> normal = RawHttp.post(fixture.port(), "/v1/chat/completions",
                            new String(chat("normal", false, 3), StandardCharsets.UTF_8));
                    normalStatus = normal.statusCode();
                    normalMillis = (System.nanoTime() - t) / 1_000_000;
                }
                Thread.sleep(TRICKLE_MILLIS);
            }
            int timedOut = 0;
            int held = 0;
            for (int i = 0; i < SLOW_CLIENTS; i++) {
                if (status[i] == 408) {
                    timedOut++;
                } else {
                    held++;
                }
            }
            return new Figures(held, timedOut, slowest, normalStatus, normalMillis);
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    private static void trickleOne(OutputStream out) {
        try {
            out.write('a');
            out.flush();
        } catch (IOException closed) {
            // the gateway has closed it: read on the next round, or counted as held if no answer came
        }
    }

    private static byte[] chat(String text, boolean stream, int maxTokens) {
        return ("{\"model\":\"llama-3.1-8b\",\"stream\":" + stream + ",\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + " " + System.nanoTime() + "\"}]}")
                .getBytes(StandardCharsets.UTF_8);
    }
}
