package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import io.cachegate.config.SemanticCacheSettings.Pooling;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EmbedderModelOptionsTest {

    @Test
    void settings_poolingOfAModelFile_overridesThePolicyDefaultOnly() {
        EmbedderModelOptions options = new EmbedderModelOptions();
        options.model = "minilm.onnx";
        options.tokenizer = Path.of("minilm-tokenizer.json");
        EmbedderSettings defaults = options.settings();

        options.pooling = "MEAN";
        EmbedderSettings mean = options.settings();

        assertThat(mean.pooling()).isEqualTo(Pooling.MEAN);
        assertThat(mean.model()).isEqualTo("minilm.onnx");
        assertThat(mean.tokenizer()).isEqualTo(Optional.of("minilm-tokenizer.json"));
        assertThat(mean.withModel(defaults.model(), defaults.tokenizer()))
                .isEqualTo(new EmbedderSettings(defaults.model(), defaults.tokenizer(), Pooling.MEAN, defaults.normalize(),
                        defaults.maxTokens(), defaults.maxBatch(), defaults.maxWait(), defaults.queueSize(),
                        defaults.workers(), defaults.intraOpThreads(), defaults.interOpThreads()));
    }

    @Test
    void settings_unknownPooling_namesTheOption() {
        EmbedderModelOptions options = new EmbedderModelOptions();
        options.pooling = "max";

        assertThatThrownBy(options::settings).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--pooling must be cls or mean");
    }
}
