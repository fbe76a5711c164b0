package io.cachegate.benchmarks;

import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.GeneratorSpec;
import io.cachegate.bench.LoadGenerator;
import io.cachegate.bench.RequestSource;
import io.cachegate.bench.RequestSources;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cachegate bench}: load-tests an OpenAI-compatible endpoint (the gateway, or a backend
 * directly) and prints a latency and throughput report. A thin shell over
 * {@link LoadGenerator}; every option maps to one field of {@link BenchOptions} or {@link GeneratorSpec}.
 * Its sub-commands are the benchmark scenarios, which start their children through a {@link ChildLauncher}.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        subcommands = {BenchOverheadCommand.class, BenchExactCacheCommand.class, BenchSemanticCommand.class,
            BenchOverloadCommand.class, BenchPrefixAffinityCommand.class, BenchCompareCommand.class,
            BenchFleetCommand.class, BenchChaosCommand.class, BenchTrickleCommand.class,
            BenchKvEventsCommand.class},
        description = {
            "Load-tests an OpenAI-compatible endpoint: closed loop (each connection sends when its answer is "
                    + "complete) or open loop (a fixed request rate; latency counted from each request's intended "
                    + "send time). Requests come from a JSON-lines trace or from a seeded chat generator.",
            "Prints a table (or JSON with --json) on stdout and a progress line per second on stderr. "
                    + "Exit status 1 when no request succeeded."
        })
public final class BenchCommand implements Callable<Integer> {

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");

    private final ChildLauncher launcher;

    @Spec
    private CommandSpec spec;

    @Option(names = "--url", defaultValue = "http://127.0.0.1:8080",
            description = "Base URL of the target (default: ${DEFAULT-VALUE}).")
    private String url;

    @Option(names = "--mode", defaultValue = "closed", paramLabel = "closed|open",
            description = "Closed or open loop (default: ${DEFAULT-VALUE}).")
    private String mode;

    @Option(names = "--connections", defaultValue = "16",
            description = "Closed loop: connections, one request in flight on each. Open loop: most connections "
                    + "opened (default: ${DEFAULT-VALUE}).")
    private int connections;

    @Option(names = "--rate", defaultValue = "0", paramLabel = "REQ/S",
            description = "Open loop: requests per second (required in open mode).")
    private double rate;

    @Option(names = "--duration", defaultValue = "30s", description = "Recorded time, e.g. 500ms, 30s, 2m (default: ${DEFAULT-VALUE}).")
    private String duration;

    @Option(names = "--warmup", defaultValue = "5s", description = "Unrecorded time before it (default: ${DEFAULT-VALUE}).")
    private String warmup;

    @Option(names = "--trace", paramLabel = "FILE.jsonl",
            description = "Replay this trace: lines {\"path\": ..., \"body\": {...}} or bare chat request bodies. "
                    + "The generator options (--model, --distinct-prompts, --stream-fraction, --max-tokens, --seed) are then ignored.")
    private Path trace;

    @Option(names = "--model", defaultValue = "llama-3.1-8b", description = "Generator: model (default: ${DEFAULT-VALUE}).")
    private String model;

    @Option(names = "--distinct-prompts", defaultValue = "1000",
            description = "Generator: number of distinct prompts drawn from (default: ${DEFAULT-VALUE}).")
    private int distinctPrompts;

    @Option(names = "--stream-fraction", defaultValue = "0",
            description = "Generator: share of streaming requests, 0..1 (default: ${DEFAULT-VALUE}).")
    private double streamFraction;

    @Option(names = "--max-tokens", defaultValue = "64", description = "Generator: max_tokens (default: ${DEFAULT-VALUE}).")
    private int maxTokens;

    @Option(names = "--seed", defaultValue = "42", description = "Generator: seed (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--header", paramLabel = "K=V",
            description = "Extra request header, repeatable, e.g. --header 'Authorization=Bearer sk-...'.")
    private List<String> headers = new ArrayList<>();

    @Option(names = "--timeout", defaultValue = "30s", description = "Request timeout (default: ${DEFAULT-VALUE}).")
    private String timeout;

    @Option(names = "--io-threads", defaultValue = "0",
            description = "Client event-loop threads; 0 = automatic (default: ${DEFAULT-VALUE}).")
    private int ioThreads;

    @Option(names = "--max-backlog", defaultValue = "0",
            description = "Open loop: due requests that may wait for a connection; 0 = rate x timeout (default: ${DEFAULT-VALUE}).")
    private int maxBacklog;

    @Option(names = "--http2", description = "Speak HTTP/2 by prior knowledge (h2c) to an http:// --url: a stream per "
            + "request, one request in flight per connection as over HTTP/1.1.")
    private boolean http2;

    @Option(names = "--json", description = "Print the report as JSON instead of a table.")
    private boolean json;

    @Option(names = "--no-progress", description = "No progress line on stderr.")
    private boolean noProgress;

    /** The scenarios start their simulators and gateways with {@code launcher}. */
    public BenchCommand(ChildLauncher launcher) {
        this.launcher = Objects.requireNonNull(launcher, "launcher");
    }

    ChildLauncher launcher() {
        return launcher;
    }

    @Override
    public Integer call() throws InterruptedException {
        BenchOptions options = options();
        BenchReport report = LoadGenerator.run(options);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(report.toJson());
        } else {
            out.print(report.toText());
        }
        out.flush();
        return report.requests() > report.errors() ? 0 : 1;
    }

    private BenchOptions options() {
        try {
            BenchOptions.Builder builder = BenchOptions.builder(URI.create(url), source())
                    .mode(BenchOptions.Mode.parse(mode))
                    .connections(connections)
                    .ratePerSecond(rate)
                    .duration(parseDuration("--duration", duration))
                    .warmup(parseDuration("--warmup", warmup))
                    .requestTimeout(parseDuration("--timeout", timeout))
                    .progress(!noProgress)
                    .ioThreads(ioThreads)
                    .maxBacklog(maxBacklog)
                    .http2(http2);
            for (String header : headers) {
                int split = header.indexOf('=');
                if (split <= 0) {
                    throw new IllegalArgumentException("--header must be K=V (was \"" + header + "\")");
                }
                builder.header(header.substring(0, split).trim(), header.substring(split + 1).trim());
            }
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    private RequestSource source() {
        if (trace == null) {
            return RequestSources.generated(new GeneratorSpec(model, distinctPrompts, streamFraction, maxTokens, seed));
        }
        try {
            return RequestSources.fromTrace(trace);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--trace: " + e.getMessage(), e);
        }
    }

    /** Parses {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or a bare number of seconds. */
    static Duration parseDuration(String option, String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException(option + " must look like 500ms, 30s, 2m or 1h (was \"" + text + "\")");
        }
        double value = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double millis = switch (unit) {
            case "ms" -> value;
            case "s" -> value * 1_000;
            case "m" -> value * 60_000;
            default -> value * 3_600_000;
        };
        return Duration.ofNanos(Math.round(millis * 1_000_000));
    }
}
