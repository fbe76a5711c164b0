package io.cachegate.gateway.server;

import io.cachegate.benchmarks.jmh.JmhDefaults;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/**
 * The request line and Host checks every request passes: the hand-written {@link HeadSyntax} against the regular
 * expressions it replaced (kept here as the baseline of the same run). In {@code HeadSyntax}'s package because the
 * class is the server's own.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HeadSyntaxBenchmark extends JmhDefaults {

    private static final Pattern REQUEST_LINE =
            Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+ [\\x21-\\x7e\\x80-\\xff]+ HTTP/1\\.[01]");
    private static final Pattern HOST = Pattern.compile(
            "(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._~!$&'()*+,;=%-]*)(:[0-9]{0,5})?");

    private final StringBuilder line = new StringBuilder("POST /v1/chat/completions HTTP/1.1");
    private final String host = "gateway.internal.example.com:8080";

    @Benchmark
    public boolean regex() {
        return REQUEST_LINE.matcher(line).matches() & HOST.matcher(host).matches();
    }

    @Benchmark
    public boolean handWritten() {
        return HeadSyntax.requestLine(line) & HeadSyntax.host(host);
    }
}
