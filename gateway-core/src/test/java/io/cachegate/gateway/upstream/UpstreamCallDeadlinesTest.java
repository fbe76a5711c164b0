package io.cachegate.gateway.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Ticker;
import io.cachegate.gateway.transport.Transport;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The upstream call's three deadlines (first byte, idle, total), kept by one watchdog timer, against a raw socket
 * backend that stays silent, stalls after its head, trickles for ever, or answers at once: each failure comes at its
 * own deadline and not before, names the right timeout, and an answer in time is never failed afterwards.
 */
class UpstreamCallDeadlinesTest {

    private static final long MS = 1_000_000;

    private EventLoopGroup group;
    private UpstreamClient client;
    private ServerSocket server;
    private final List<Socket> accepted = new ArrayList<>();
    private final AtomicBoolean closing = new AtomicBoolean();

    @BeforeEach
    void setUp() throws IOException {
        group = Transport.NIO.newGroup(1, "deadlines-test");
        client = new UpstreamClient(Transport.NIO, 1, Ticker.system());
        server = new ServerSocket(0);
    }

    @AfterEach
    void tearDown() throws Exception {
        closing.set(true);
        server.close();
        synchronized (accepted) {
            for (Socket s : accepted) {
                s.close();
            }
        }
        client.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void silentBackend_failsAtTheFirstByteDeadline_notBefore() throws Exception {
        serve(out -> { });
        Outcome o = call(new UpstreamSettings("b", 1_000, 300 * MS, 5_000 * MS, 10_000 * MS, 4));

        assertThat(o.failure.get(5, TimeUnit.SECONDS)).isEqualTo(UpstreamFailure.FIRST_BYTE_TIMEOUT);
        assertThat(o.millisToFailure()).isBetween(280L, 3_000L);
        assertThat(o.head.isDone()).isFalse();
    }

    @Test
    void headThenStall_failsAtTheIdleDeadline_countedFromTheUnansweredRead() throws Exception {
        serve(out -> out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
                .getBytes(StandardCharsets.US_ASCII)));
        Outcome o = call(new UpstreamSettings("b", 1_000, 5_000 * MS, 300 * MS, 10_000 * MS, 4));

        assertThat(o.failure.get(5, TimeUnit.SECONDS)).isEqualTo(UpstreamFailure.IDLE_TIMEOUT);
        assertThat(o.head.isDone()).isTrue();
        assertThat(o.millisToFailure()).isBetween(280L, 3_000L);
    }

    @Test
    void headAfterTheWatchdogFiredOnce_thenStall_failsAtIdleFromTheHead_notAtTheFirstBytesDeadline() throws Exception {
        // The watchdog first fires at 300 ms (idle), finds the first byte not yet due and waits for it (3 s); the head
        // at 700 ms must bring the idle deadline forward to about 1 s.
        serve(out -> {
            Thread.sleep(700);
            out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        });
        Outcome o = call(new UpstreamSettings("b", 1_000, 3_000 * MS, 300 * MS, 10_000 * MS, 4));

        assertThat(o.failure.get(5, TimeUnit.SECONDS)).isEqualTo(UpstreamFailure.IDLE_TIMEOUT);
        assertThat(o.head.isDone()).isTrue();
        assertThat(o.millisToFailure()).isBetween(950L, 2_500L);
    }

    @Test
    void trickleUnderTheIdleTime_failsAtTheTotalDeadline() throws Exception {
        serve(out -> {
            out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            while (!closing.get()) {
                out.write("1\r\nx\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                Thread.sleep(100);
            }
        });
        Outcome o = call(new UpstreamSettings("b", 1_000, 5_000 * MS, 400 * MS, 1_000 * MS, 4));

        assertThat(o.failure.get(5, TimeUnit.SECONDS)).isEqualTo(UpstreamFailure.TOTAL_TIMEOUT);
        assertThat(o.millisToFailure()).isBetween(980L, 4_000L);
        assertThat(o.pieces).as("the trickle arrived until the total deadline").isGreaterThan(3);
    }

    @Test
    void answerInTime_isNeverFailedAfterwards() throws Exception {
        serve(out -> out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII)));
        Outcome o = call(new UpstreamSettings("b", 1_000, 300 * MS, 300 * MS, 600 * MS, 4));

        assertThat(o.last.get(5, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(900); // past every deadline of the call
        assertThat(o.failure.isDone()).as("a failure after the answer: %s", o.failure).isFalse();
    }

    /** The outcome of one call, as its listener saw it. */
    private static final class Outcome implements UpstreamListener {
        final long startNanos = System.nanoTime();
        final CompletableFuture<HttpResponse> head = new CompletableFuture<>();
        final CompletableFuture<Boolean> last = new CompletableFuture<>();
        final CompletableFuture<UpstreamFailure> failure = new CompletableFuture<>();
        volatile long failedAtNanos;
        volatile int pieces;

        long millisToFailure() {
            return (failedAtNanos - startNanos) / MS;
        }

        @Override
        public boolean onResponseHead(UpstreamCall call, HttpResponse head) {
            this.head.complete(head);
            return true;
        }

        @Override
        public void onContent(UpstreamCall call, HttpContent content) {
            pieces++;
            boolean end = content instanceof LastHttpContent;
            ReferenceCountUtil.release(content);
            if (end) {
                last.complete(true);
            } else {
                call.requestMore();
            }
        }

        @Override
        public void onReadComplete(UpstreamCall call) {
            call.requestMore();
        }

        @Override
        public void onFailure(UpstreamCall call, UpstreamFailure f, Throwable cause) {
            failedAtNanos = System.nanoTime();
            failure.complete(f);
        }
    }

    private Outcome call(UpstreamSettings settings) {
        Outcome o = new Outcome();
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                "/v1/chat/completions", Unpooled.wrappedBuffer(body));
        request.headers().set(HttpHeaderNames.HOST, "127.0.0.1").setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        var loop = group.next();
        loop.execute(() -> client.call(loop, URI.create("http://127.0.0.1:" + server.getLocalPort()), settings,
                request, o));
        return o;
    }

    /** What the backend does with each connection after reading the request's head. */
    @FunctionalInterface
    private interface Behaviour {
        void answer(OutputStream out) throws Exception;
    }

    private void serve(Behaviour behaviour) {
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    synchronized (accepted) {
                        accepted.add(s);
                    }
                    Thread h = new Thread(() -> handle(s, behaviour), "deadlines-connection");
                    h.setDaemon(true);
                    h.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "deadlines-backend");
        t.setDaemon(true);
        t.start();
    }

    private static void handle(Socket s, Behaviour behaviour) {
        try (s) {
            InputStream in = s.getInputStream();
            // The request's head ends at the first empty line; its two-byte body follows.
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    return;
                }
                matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            in.readNBytes(2);
            OutputStream out = s.getOutputStream();
            behaviour.answer(out);
            out.flush();
            Thread.sleep(30_000); // hold the connection open: the client decides when it ends
        } catch (Exception e) {
            // the client closed the connection (its timeout fired): what the test waits for
        }
    }
}
