package io.cachegate.cli;

import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import io.cachegate.config.SemanticCacheSettings.Pooling;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Option;

/** {@code --model}, {@code --tokenizer} and {@code --pooling} of the commands that embed labelled data (eval-semantic, fit-decision). */
final class EmbedderModelOptions {

    @Option(names = "--model", defaultValue = EmbedderSettings.BUNDLED, paramLabel = "bundled|bundled-fp32|FILE.onnx",
            description = "The embedding model, as cache.semantic.embedder.model (default ${DEFAULT-VALUE}).")
    String model = EmbedderSettings.BUNDLED;

    @Option(names = "--tokenizer", paramLabel = "FILE", description = "The tokenizer.json of a model file.")
    Path tokenizer;

    // A model file trained for mean pooling (all-MiniLM, e5) embeds badly through the default CLS pooling.
    @Option(names = "--pooling", paramLabel = "cls|mean",
            description = "The pooling of a model file, as cache.semantic.embedder.pooling (default: the policy's).")
    String pooling;

    /**
     * The policy's embedder defaults for this model (so {@code bundled-fp32} batches, as the gateway would).
     *
     * @throws IllegalArgumentException when a model file has no tokenizer
     */
    EmbedderSettings settings() {
        EmbedderSettings defaults = EmbedderSettings.defaultsFor(model, Optional.ofNullable(tokenizer).map(Path::toString));
        if (pooling == null) {
            return defaults;
        }
        Pooling chosen;
        try {
            chosen = Pooling.valueOf(pooling.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--pooling must be cls or mean, was \"" + pooling + "\"", e);
        }
        return new EmbedderSettings(defaults.model(), defaults.tokenizer(), chosen, defaults.normalize(),
                defaults.maxTokens(), defaults.maxBatch(), defaults.maxWait(), defaults.queueSize(), defaults.workers(),
                defaults.intraOpThreads(), defaults.interOpThreads());
    }
}
