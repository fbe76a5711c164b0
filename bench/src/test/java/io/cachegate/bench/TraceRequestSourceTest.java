package io.cachegate.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceRequestSourceTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void fromTrace_wrappedAndBareLines_areReadInOrderAndCycled() throws IOException {
        Path trace = write("""
                {"path": "/v1/completions", "body": {"model": "m", "prompt": "hi", "max_tokens": 3}}

                {"model": "m", "messages": [{"role": "user", "content": "hello"}], "stream": true}
                {"method": "GET", "path": "/v1/models", "body": null}
                """);

        RequestSource source = RequestSources.fromTrace(trace);
        BenchRequest first = source.next();
        BenchRequest second = source.next();
        BenchRequest third = source.next();
        BenchRequest fourth = source.next();

        assertThat(first.path()).isEqualTo("/v1/completions");
        assertThat(first.method()).isEqualTo("POST");
        assertThat(first.streaming()).isFalse();
        assertThat(JSON.readTree(first.body()).get("prompt").asText()).isEqualTo("hi");
        assertThat(second.path()).isEqualTo("/v1/chat/completions");
        assertThat(second.streaming()).isTrue();
        assertThat(third.method()).isEqualTo("GET");
        assertThat(third.path()).isEqualTo("/v1/models");
        assertThat(third.body()).isEmpty();
        assertThat(fourth).isSameAs(first);
    }

    @Test
    void fromTrace_badLine_namesFileAndLine() throws IOException {
        Path trace = write("{\"model\": \"m\"}\n{not json\n");

        assertThatThrownBy(() -> RequestSources.fromTrace(trace))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("trace.jsonl:2");
    }

    @Test
    void fromTrace_nonObjectBody_isRejected() throws IOException {
        Path trace = write("{\"path\": \"/v1/chat/completions\", \"body\": [1, 2]}\n");

        assertThatThrownBy(() -> RequestSources.fromTrace(trace))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(":1");
    }

    @Test
    void fromTrace_empty_isRejected() throws IOException {
        Path trace = write("\n\n");

        assertThatThrownBy(() -> RequestSources.fromTrace(trace))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no request");
    }

    private Path write(String content) throws IOException {
        Path trace = dir.resolve("trace.jsonl");
        Files.writeString(trace, content);
        return trace;
    }
}
