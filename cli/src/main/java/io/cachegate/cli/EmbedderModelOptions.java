package io.cachegate.cli;

import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** {@code --model} and {@code --tokenizer} of the commands that embed labelled data (eval-semantic, fit-decision). */
final class EmbedderModelOptions {

    @Option(names = "--model", defaultValue = EmbedderSettings.BUNDLED, paramLabel = "bundled|bundled-fp32|FILE.onnx",
            description = "The embedding model, as cache.semantic.embedder.model (default ${DEFAULT-VALUE}).")
    String model = EmbedderSettings.BUNDLED;

    @Option(names = "--tokenizer", paramLabel = "FILE", description = "The tokenizer.json of a model file.")
    Path tokenizer;

    /**
     * The policy's embedder defaults for this model (so {@code bundled-fp32} batches, as the gateway would).
     *
     * @throws IllegalArgumentException when a model file has no tokenizer
     */
    EmbedderSettings settings() {
        return EmbedderSettings.defaultsFor(model, Optional.ofNullable(tokenizer).map(Path::toString));
    }
}
