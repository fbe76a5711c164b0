package io.cachegate.gateway;

import static io.cachegate.gateway.SdkStreams.collect;
import static io.cachegate.gateway.SdkStreams.finishReasons;
import static io.cachegate.gateway.SdkStreams.text;
import static org.assertj.core.api.Assertions.assertThat;

import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.completions.CompletionUsage;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.EmbeddingCreateParams;
import com.openai.models.models.Model;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The official OpenAI Java SDK through the gateway gets exactly what it gets from the backend directly. */
class OpenAiSdkIT {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator();

    @Test
    void chatCompletion_nonStreaming_matchesBackend() {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                .model("llama-3.1-8b")
                .addUserMessage("Tell me about caching proxies")
                .maxCompletionTokens(24)
                .temperature(0.0)
                .build();
        ChatCompletion expected = fixture.sdkDirect().chat().completions().create(params);
        ChatCompletion actual = fixture.sdk("x").chat().completions().create(params);

        assertThat(actual.id()).isEqualTo(expected.id());
        assertThat(actual.model()).isEqualTo(expected.model());
        assertThat(actual.choices()).hasSize(1);
        assertThat(actual.choices().get(0).message().content()).isEqualTo(expected.choices().get(0).message().content());
        assertThat(actual.choices().get(0).message().content()).get().asString().isNotBlank();
        assertThat(actual.choices().get(0).finishReason()).isEqualTo(expected.choices().get(0).finishReason());
        assertSameUsage(actual.usage(), expected.usage());
    }

    @Test
    void chatCompletion_streaming_matchesBackend() {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                .model("llama-3.1-8b")
                .addUserMessage("Stream me a story")
                .maxCompletionTokens(40)
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build())
                .build();
        List<ChatCompletionChunk> expected = collect(fixture.sdkDirect(), params);
        List<ChatCompletionChunk> actual = collect(fixture.sdk("x"), params);

        assertThat(actual).hasSameSizeAs(expected).hasSizeGreaterThan(10);
        assertThat(actual.stream().map(ChatCompletionChunk::id).distinct().toList())
                .isEqualTo(expected.stream().map(ChatCompletionChunk::id).distinct().toList());
        assertThat(text(actual)).isEqualTo(text(expected)).isNotBlank();
        assertThat(finishReasons(actual)).isEqualTo(finishReasons(expected)).isNotEmpty();
        assertSameUsage(actual.get(actual.size() - 1).usage(), expected.get(expected.size() - 1).usage());
        assertThat(actual.get(actual.size() - 1).usage()).isPresent();
    }

    @Test
    void completion_matchesBackend() {
        CompletionCreateParams params = CompletionCreateParams.builder()
                .model("qwen2.5-0.5b")
                .prompt("Once upon a time")
                .maxTokens(16)
                .build();
        Completion expected = fixture.sdkDirect().completions().create(params);
        Completion actual = fixture.sdk("x").completions().create(params);

        assertThat(actual.id()).isEqualTo(expected.id());
        assertThat(actual.choices().get(0).text()).isEqualTo(expected.choices().get(0).text()).isNotBlank();
        assertThat(actual.choices().get(0).finishReason()).isEqualTo(expected.choices().get(0).finishReason());
        assertSameUsage(actual.usage(), expected.usage());
    }

    @Test
    void embeddings_matchBackend() {
        EmbeddingCreateParams params = EmbeddingCreateParams.builder()
                .model("llama-3.1-8b")
                .input("a sentence to embed")
                .encodingFormat(EmbeddingCreateParams.EncodingFormat.FLOAT)
                .build();
        CreateEmbeddingResponse expected = fixture.sdkDirect().embeddings().create(params);
        CreateEmbeddingResponse actual = fixture.sdk("x").embeddings().create(params);

        assertThat(actual.data()).hasSize(1);
        assertThat(actual.data().get(0).embedding()).isEqualTo(expected.data().get(0).embedding()).isNotEmpty();
        assertThat(actual.model()).isEqualTo(expected.model());
        assertThat(actual.usage().promptTokens()).isEqualTo(expected.usage().promptTokens());
        assertThat(actual.usage().totalTokens()).isEqualTo(expected.usage().totalTokens());
    }

    @Test
    void models_listMatchesBackend() {
        List<String> expected = fixture.sdkDirect().models().list().data().stream().map(Model::id).toList();
        List<String> actual = fixture.sdk("x").models().list().data().stream().map(Model::id).toList();

        assertThat(actual).isEqualTo(expected).containsExactly("llama-3.1-8b", "qwen2.5-0.5b");
    }

    @Test
    void chatCompletion_answer_carriesGatewayHeaders() throws Exception {
        HttpResponse<String> response = RawHttp.post(fixture.port(), "/v1/chat/completions",
                "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4}");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-Request-Id")).get().asString().matches("[0-9a-f]{32}");
        assertThat(response.headers().firstValue("X-Cache")).contains("BYPASS");
        assertThat(response.headers().firstValue("Server-Timing")).get().asString()
                .matches("upstream;dur=\\d+\\.\\d{3}, total;dur=\\d+\\.\\d{3}");
        assertThat(response.body()).contains("\"chat.completion\"");
    }

    @Test
    void requestId_fromClient_isEchoed() throws Exception {
        HttpResponse<String> response = RawHttp.post(fixture.port(), "/v1/completions",
                "{\"model\":\"llama-3.1-8b\",\"prompt\":\"hi\",\"max_tokens\":2}", "X-Request-Id", "my-id-42");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-Request-Id")).contains("my-id-42");
    }

    private static void assertSameUsage(Optional<CompletionUsage> actual, Optional<CompletionUsage> expected) {
        assertThat(actual.isPresent()).isEqualTo(expected.isPresent());
        if (expected.isPresent()) {
            assertThat(actual.get().promptTokens()).isEqualTo(expected.get().promptTokens());
            assertThat(actual.get().completionTokens()).isEqualTo(expected.get().completionTokens());
            assertThat(actual.get().totalTokens()).isEqualTo(expected.get().totalTokens());
        }
    }
}
