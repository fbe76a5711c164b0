package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Optional;

/**
 * Fuzzes the SSE reader and stream assembler with arbitrary bodies cut into arbitrary pieces. Properties: feeding
 * never throws; the outcome does not depend on where the body was cut (same document, same failure); an assembled
 * answer is a JSON {@code chat.completion} or {@code text_completion} with a {@code choices} array, else the
 * answer is refused (failed, or not done).
 */
class StreamAssemblerFuzzTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @FuzzTest(maxDuration = "10s")
    void assemble_anyBodyAnyCuts_validJsonOrRefused(FuzzedDataProvider data) throws IOException {
        int maxBytes = data.consumeInt(1, 1 << 16);
        int[] cuts = new int[data.consumeInt(0, 16)];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = data.consumeInt(0, 64);
        }
        byte[] body = data.consumeRemainingAsBytes();

        StreamAssembler whole = new StreamAssembler(maxBytes);
        whole.feed(body, 0, body.length);
        StreamAssembler pieces = new StreamAssembler(maxBytes);
        int at = 0;
        for (int cut : cuts) {
            int n = Math.min(cut, body.length - at);
            pieces.feed(body, at, n);
            at += n;
        }
        pieces.feed(body, at, body.length - at);

        Optional<byte[]> document = whole.completeDocument();
        assertThat(pieces.failed()).isEqualTo(whole.failed());
        assertThat(pieces.done()).isEqualTo(whole.done());
        assertThat(pieces.completeDocument().map(String::new)).isEqualTo(document.map(String::new));
        if (document.isPresent()) {
            JsonNode answer = JSON.readTree(document.get());
            assertThat(answer.path("object").asText()).isIn("chat.completion", "text_completion");
            assertThat(answer.path("choices").isArray()).isTrue();
        } else {
            assertThat(whole.failed() || !whole.done()).isTrue();
        }
    }
}
