package io.cachegate.cli.analyze;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.cachegate.cache.semantic.Embedder;
import io.cachegate.cache.semantic.MicroBatchingEmbedder;
import io.cachegate.config.PrefixAffinitySettings;
import io.cachegate.config.SemanticCacheSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cachegate analyze FILE}: how much of a request log each cache layer could answer (see docs/cli.md). */
@Command(name = "analyze", mixinStandardHelpOptions = true,
        description = {
            "How much of your traffic the caches could answer, before you turn them on. Reads a log of OpenAI "
                    + "requests, one JSON body per line (chat, completions or embeddings) or {\"tenant\": ..., "
                    + "\"body\": {...}}, in bounded memory, and reports per tenant and model: the deterministic "
                    + "share, exact repeats under the gateway's own key, repeats after whitespace or case "
                    + "normalisation, the prompt prefix a prefix-affinity router could reuse, near-duplicates at "
                    + "several similarities (bundled embedder), and the projected hits, tokens and cost saved.",
            "Malformed lines are counted and the first few listed; blank lines are skipped."
        })
public final class AnalyzeCommand implements Callable<Integer> {

    @Parameters(paramLabel = "FILE", description = "The request log (JSON lines); - reads standard input.")
    Path file;

    @Option(names = "--json", description = "Print a JSON document instead of tables (fields in docs/cli.md).")
    boolean json;

    @Option(names = "--no-semantic", description = "Skip the embedder: no near-duplicate figures, much faster.")
    boolean noSemantic;

    @Option(names = "--thresholds", split = ",", paramLabel = "T", defaultValue = "0.80,0.85,0.90,0.95",
            description = "Similarities at which near-duplicates are counted (default ${DEFAULT-VALUE}).")
    List<Double> thresholds;

    @Option(names = "--threshold", paramLabel = "T",
            description = "The semantic layer's threshold for the projected hits (default: the policy's, 0.92).")
    Double threshold;

    @Option(names = "--text-field", paramLabel = "FIELD",
            description = "Lines are JSON objects whose FIELD is a prompt: each becomes a chat request with that "
                    + "text as its one user message (model from the line's \"model\" or --model).")
    String textField;

    @Option(names = "--model", defaultValue = "unknown", description = "Model of --text-field lines that name none.")
    String model;

    @Option(names = "--assume-temperature", paramLabel = "T",
            description = "Temperature of chat and completion requests that give none (a what-if: OpenAI's "
                    + "default is 1, which the exact cache does not store).")
    Double assumeTemperature;

    @Option(names = "--completion-tokens", defaultValue = "1024",
            description = "Output tokens of a request without max_tokens, for the savings (default "
                    + "${DEFAULT-VALUE}, the routes' default_max_tokens).")
    long completionTokens;

    @Option(names = "--price-in", defaultValue = "0", paramLabel = "PRICE",
            description = "Price per million prompt tokens; with --price-out, the cost saved is shown.")
    double priceIn;

    @Option(names = "--price-out", defaultValue = "0", paramLabel = "PRICE",
            description = "Price per million completion tokens.")
    double priceOut;

    @Option(names = "--block-chars", description = "Prefix block size in characters (default: the policy's, 256).")
    Integer blockChars;

    @Option(names = "--max-keys", defaultValue = "2000000",
            description = "Distinct keys remembered per key set (8-16 bytes each); later new keys are not, so their "
                    + "repeats are under-counted (default ${DEFAULT-VALUE}).")
    long maxKeys;

    @Option(names = "--max-prefix-blocks", defaultValue = "200000",
            description = "Prefix blocks remembered, least recently used dropped first (default ${DEFAULT-VALUE}).")
    int maxPrefixBlocks;

    @Option(names = "--max-vectors", defaultValue = "20000",
            description = "Embedded requests kept for the near-duplicate search (1.5 KiB each), oldest dropped "
                    + "first (default ${DEFAULT-VALUE}).")
    int maxVectors;

    @Option(names = "--max-groups", defaultValue = "200",
            description = "Tenant and model pairs reported apart; the rest go to (other) (default ${DEFAULT-VALUE}).")
    int maxGroups;

    @Option(names = "--max-line-chars", defaultValue = "16777216",
            description = "Longer lines are skipped as malformed (default ${DEFAULT-VALUE}).")
    int maxLineChars;

    @Option(names = "--progress", negatable = true,
            description = "Progress bar on standard error (default: when it is a terminal).")
    Boolean progress;

    @Override
    public Integer call() throws IOException, InterruptedException {
        AnalyzerSettings settings;
        try {
            settings = new AnalyzerSettings(blockChars != null ? blockChars
                    : PrefixAffinitySettings.defaults().blockChars(), maxPrefixBlocks, maxKeys, maxVectors, maxGroups,
                    thresholds, threshold != null ? threshold : SemanticCacheSettings.defaults().threshold(),
                    completionTokens);
            if (priceIn < 0 || priceOut < 0 || maxLineChars < 1) {
                throw new IllegalArgumentException("prices must not be negative and --max-line-chars must be positive");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("analyze: " + e.getMessage());
            return 2;
        }
        boolean stdin = file.toString().equals("-");
        if (!stdin && !Files.isRegularFile(file)) {
            System.err.println("analyze: no such file: " + file);
            return 2;
        }
        RequestLogParser parser = new RequestLogParser(Optional.ofNullable(textField), model,
                assumeTemperature == null ? OptionalDouble.empty() : OptionalDouble.of(assumeTemperature));
        long started = System.nanoTime();
        try (InputStream in = stdin ? System.in : Files.newInputStream(file);
             Embedder embedder = noSemantic ? null : MicroBatchingEmbedder.start(
                     SemanticCacheSettings.EmbedderSettings.defaults())) {
            LogAnalysis run = new LogAnalysis(new TrafficAnalyzer(settings, embedder != null), parser, Optional.ofNullable(embedder),
                    maxLineChars);
            boolean showProgress = progress != null ? progress : System.console() != null;
            run.run(in, showProgress ? Optional.of(new ProgressLine(System.err, stdin ? 0 : Files.size(file)))
                    : Optional.empty());
            AnalysisReport report = new AnalysisReport(stdin ? "-" : file.toString(), run,
                    Optional.ofNullable(embedder).map(Embedder::modelId), (System.nanoTime() - started) / 1e9,
                    priceIn, priceOut);
            if (json) {
                System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                        .writeValueAsString(report.document()));
            } else {
                System.out.print(report.text());
            }
            return 0;
        } catch (NoSuchFileException e) {
            System.err.println("analyze: no such file: " + e.getFile());
            return 2;
        }
    }
}
