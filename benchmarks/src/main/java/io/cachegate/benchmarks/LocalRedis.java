package io.cachegate.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** The Redis the exact-cache benchmark's gateways share: the given one, the local one, or a redis-server of its own. */
final class LocalRedis {

    private final Progress progress;

    LocalRedis(Progress progress) {
        this.progress = progress;
    }

    /**
     * {@code option} is {@code auto} (127.0.0.1:6379 if it answers PING, else start one), {@code start} (always
     * start one, as a child of {@code children}) or a {@code redis://} URI; the URI the gateways use.
     */
    String uri(String option, BenchChildren children) throws IOException, InterruptedException {
        if (!"auto".equals(option) && !"start".equals(option)) {
            progress.info("Redis: %s (given)", option);
            return option;
        }
        if ("auto".equals(option) && ping(6379)) {
            progress.info("Redis: 127.0.0.1:6379 answers PING, using it");
            return "redis://127.0.0.1:6379";
        }
        int port = LocalProcesses.freePort();
        children.adopt(new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no")
                .redirectErrorStream(true).redirectOutput(children.log("redis")).start());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!ping(port)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("redis-server did not answer PING on port " + port + "; see "
                        + children.log("redis"));
            }
            Thread.sleep(100);
        }
        progress.info("Redis: started redis-server on 127.0.0.1:%d", port);
        return "redis://127.0.0.1:" + port;
    }

    private static boolean ping(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            s.setSoTimeout(1000);
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] answer = new byte[7];
            int n = s.getInputStream().readNBytes(answer, 0, 7);
            return new String(answer, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }
}
