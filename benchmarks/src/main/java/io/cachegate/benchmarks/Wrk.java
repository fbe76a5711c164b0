package io.cachegate.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * wrk, a load generator we did not write (Debian's package), as the second client of {@code bench compare}:
 * a Lua script POSTs the chat body with the target's headers, and its {@code done} hook prints the figures on
 * one line in microseconds ({@link #parse}), so nothing depends on wrk's rounded human-readable units.
 */
final class Wrk {

    /** The line the script's {@code done} hook prints. */
    private static final Pattern RESULT = Pattern.compile("(?m)^cachegate-wrk requests=(\\d+) duration_us=(\\d+) "
            + "p50_us=(\\d+) p99_us=(\\d+) connect=(\\d+) read=(\\d+) write=(\\d+) status=(\\d+) timeout=(\\d+)\\s*$");

    /**
     * What one wrk run measured: requests completed (any status), over {@code seconds}, latency percentiles,
     * socket errors (connect, read, write, timeout) and answers with a status of 400 or more.
     */
    record Result(long requests, double seconds, double p50Ms, double p99Ms, long socketErrors, long badStatus) {

        /** Requests per second that were answered without an error. */
        double throughput() {
            return seconds <= 0 ? 0 : Math.max(0, requests - badStatus) / seconds;
        }

        long errors() {
            return socketErrors + badStatus;
        }
    }

    private final String binary;
    private final int threads;

    Wrk(String binary, int threads) {
        this.binary = binary;
        this.threads = threads;
    }

    /**
     * The Lua script that turns every request into {@code POST path} with {@code body} and {@code headers}, and
     * prints the result line at the end.
     */
    static String script(String path, byte[] body, Map<String, String> headers) {
        StringBuilder lua = new StringBuilder(1024 + body.length);
        lua.append("wrk.method = \"POST\"\n");
        lua.append("wrk.path = ").append(longString(path.getBytes(StandardCharsets.UTF_8))).append('\n');
        lua.append("wrk.body = ").append(longString(body)).append('\n');
        lua.append("wrk.headers[\"Content-Type\"] = \"application/json\"\n");
        // Spaces inside the brackets: "[[[" would open a long string at the first bracket.
        headers.forEach((k, v) -> lua.append("wrk.headers[ ").append(longString(k.getBytes(StandardCharsets.UTF_8)))
                .append(" ] = ").append(longString(v.getBytes(StandardCharsets.UTF_8))).append('\n'));
        lua.append("""
                done = function(summary, latency, requests)
                  local e = summary.errors
                  io.write(string.format("cachegate-wrk requests=%d duration_us=%d p50_us=%d p99_us=%d connect=%d read=%d write=%d status=%d timeout=%d\\n",
                    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
                    e.connect, e.read, e.write, e.status, e.timeout))
                end
                """);
        return lua.toString();
    }

    /** {@code bytes} as a Lua long string {@code [==[...]==]}, its level chosen so the text cannot close it. */
    static String longString(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        String eq = "";
        while (text.contains("]" + eq + "]") || text.endsWith("]" + eq)) {
            eq += "=";
        }
        // A newline right after the opening bracket would be dropped by Lua: such text starts on a line of its own.
        String first = text.startsWith("\n") || text.startsWith("\r") ? "\n" : "";
        return "[" + eq + "[" + first + text + "]" + eq + "]";
    }

    /** The command line: {@code threads} threads, {@code connections} connections, for {@code duration}. */
    List<String> command(URI target, Path script, int connections, Duration duration) {
        long seconds = Math.max(1, (duration.toMillis() + 999) / 1000);
        return List.of(binary, "-t", Integer.toString(Math.min(threads, connections)), "-c",
                Integer.toString(connections), "-d", seconds + "s", "--timeout", "10s", "-s", script.toString(),
                target.toString());
    }

    /** Runs wrk against {@code target} with {@code script}; its output (kept for the error message) parsed. */
    Result run(URI target, Path script, int connections, Duration duration) throws IOException, InterruptedException {
        List<String> command = command(target, script, connections, duration);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(duration.toSeconds() + 30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("wrk did not end: " + String.join(" ", command));
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IllegalStateException("wrk failed (exit " + p.exitValue() + "): " + String.join(" ", command)
                    + "\n" + text);
        }
        return parse(text);
    }

    /** The result line of the script's {@code done} hook in wrk's output. */
    static Result parse(String output) {
        Matcher m = RESULT.matcher(output);
        if (!m.find()) {
            throw new IllegalArgumentException("wrk printed no result line (was the script's done hook run?):\n"
                    + output);
        }
        long socketErrors = 0;
        for (int g : new int[] {5, 6, 7, 9}) {
            socketErrors += Long.parseLong(m.group(g));
        }
        return new Result(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)) / 1e6,
                Long.parseLong(m.group(3)) / 1e3, Long.parseLong(m.group(4)) / 1e3, socketErrors,
                Long.parseLong(m.group(8)));
    }

    /** Writes {@code script} to a file of {@code dir} named after the target. */
    static Path write(Path dir, String name, String script) throws IOException {
        Path file = dir.resolve("wrk-" + name.replaceAll("[^A-Za-z0-9_-]", "_") + ".lua");
        Files.writeString(file, script);
        return file;
    }

    /** wrk's version line, e.g. {@code wrk 4.1.0 [epoll]}. */
    String version() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary, "-v").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        List<String> lines = new ArrayList<>(out.lines().toList());
        return lines.isEmpty() ? "wrk" : lines.get(0).split(" Copyright")[0].strip();
    }
}
