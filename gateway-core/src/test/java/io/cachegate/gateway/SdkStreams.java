package io.cachegate.gateway;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.util.ArrayList;
import java.util.List;

/** A chat completion streamed through the OpenAI Java SDK, and what the tests read from its chunks. */
final class SdkStreams {

    private SdkStreams() {
    }

    /** Every chunk of one streamed call, the stream closed. */
    static List<ChatCompletionChunk> collect(OpenAIClient client, ChatCompletionCreateParams params) {
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params)) {
            List<ChatCompletionChunk> chunks = new ArrayList<>();
            stream.stream().forEach(chunks::add);
            return chunks;
        }
    }

    /** The text the chunks' deltas carry, joined. */
    static String text(List<ChatCompletionChunk> chunks) {
        StringBuilder out = new StringBuilder();
        chunks.forEach(chunk -> chunk.choices().forEach(c -> c.delta().content().ifPresent(out::append)));
        return out.toString();
    }

    /** The finish reasons, in the order the chunks carry them. */
    static List<String> finishReasons(List<ChatCompletionChunk> chunks) {
        List<String> reasons = new ArrayList<>();
        chunks.forEach(chunk -> chunk.choices().forEach(c -> c.finishReason().ifPresent(r -> reasons.add(r.asString()))));
        return reasons;
    }
}
