package io.cachegate.gateway.server;

import io.cachegate.benchmarks.jmh.JmhDefaults;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/**
 * The scan of every request head for its request line and obs-fold: {@link HeadScan} (line feeds searched for after
 * the request line) against the byte-by-byte loop it replaced, kept here as the baseline of the same run, on the head
 * of a typical SDK request in a direct buffer as the decoder gets it.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HeadScanBenchmark extends JmhDefaults {

    private static final byte[] HEAD = ("POST /v1/chat/completions HTTP/1.1\r\nHost: gateway.internal:8080\r\n"
            + "Content-Type: application/json\r\nAuthorization: Bearer sk-0123456789abcdef0123456789abcdef\r\n"
            + "User-Agent: OpenAI/Python 1.54.4\r\nAccept: application/json\r\nX-Stainless-Lang: python\r\n"
            + "X-Stainless-Package-Version: 1.54.4\r\nContent-Length: 214\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private final ByteBuf buffer = Unpooled.directBuffer(HEAD.length).writeBytes(HEAD);
    private final HeadScan scan = new HeadScan();
    private final StringBuilder line = new StringBuilder();

    @Benchmark
    public boolean lineFeeds() {
        scan.reset();
        scan.scan(buffer, 0, HEAD.length);
        return scan.folded();
    }

    @Benchmark
    public boolean byteByByte() {
        boolean sawLine = false;
        boolean lineDone = false;
        boolean lastWasLf = false;
        boolean folded = false;
        line.setLength(0);
        for (int i = 0; i < HEAD.length; i++) {
            byte b = buffer.getByte(i);
            if (lastWasLf && sawLine && (b == ' ' || b == '\t')) {
                folded = true;
            }
            if (sawLine && !lineDone) {
                if (b == '\n') {
                    lineDone = true;
                } else if (b != '\r') {
                    line.append((char) (b & 0xFF));
                }
            } else if (!sawLine && b != '\r' && b != '\n' && b != ' ' && b != '\t') {
                line.append((char) (b & 0xFF));
            }
            if (b != '\r' && b != '\n' && b != ' ' && b != '\t') {
                sawLine = true;
            }
            lastWasLf = b == '\n';
        }
        return folded;
    }
}
