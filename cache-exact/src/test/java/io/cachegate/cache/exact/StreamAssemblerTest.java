package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.StreamJson.assembleAtOnce;
import static io.cachegate.cache.exact.StreamJson.assembleByteByByte;
import static io.cachegate.cache.exact.StreamJson.assertSameAnswer;
import static io.cachegate.cache.exact.StreamJson.comparable;
import static io.cachegate.cache.exact.StreamJson.document;
import static io.cachegate.cache.exact.StreamJson.parse;
import static io.cachegate.cache.exact.StreamJson.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class StreamAssemblerTest {

    /** A chat stream as vLLM (and our simulator's CompletionJson) writes it, with include_usage. */
    static final String VLLM_CHAT = """
            data: {"id":"chatcmpl-7f3a","object":"chat.completion.chunk","created":1718000000,"model":"qwen","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}

            data: {"id":"chatcmpl-7f3a","object":"chat.completion.chunk","created":1718000000,"model":"qwen","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"usage":null}

            data: {"id":"chatcmpl-7f3a","object":"chat.completion.chunk","created":1718000000,"model":"qwen","choices":[{"index":0,"delta":{"content":" wörld"},"logprobs":null,"finish_reason":null}],"usage":null}

            data: {"id":"chatcmpl-7f3a","object":"chat.completion.chunk","created":1718000000,"model":"qwen","choices":[{"index":0,"delta":{"content":" 🎉"},"logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":null}

            data: {"id":"chatcmpl-7f3a","object":"chat.completion.chunk","created":1718000000,"model":"qwen","choices":[],"usage":{"prompt_tokens":9,"total_tokens":12,"completion_tokens":3}}

            data: [DONE]

            """;

    /** The same answer not streamed, as vLLM (CompletionJson.fullResponse) writes it. */
    static final String VLLM_CHAT_DOCUMENT = """
            {"id":"chatcmpl-7f3a","object":"chat.completion","created":1718000000,"model":"qwen","choices":[\
            {"index":0,"message":{"role":"assistant","content":"Hello wörld 🎉","tool_calls":[]},"logprobs":null,\
            "finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":9,"total_tokens":12,\
            "completion_tokens":3,"prompt_tokens_details":null},"prompt_logprobs":null}""";

    /** A text completion stream with n=2, interleaved per token as vLLM sends it, without include_usage. */
    static final String VLLM_TEXT_N2 = """
            data: {"id":"cmpl-11","object":"text_completion","created":1718000001,"model":"qwen","choices":[{"index":0,"text":"Once","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}

            data: {"id":"cmpl-11","object":"text_completion","created":1718000001,"model":"qwen","choices":[{"index":1,"text":"There","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}

            data: {"id":"cmpl-11","object":"text_completion","created":1718000001,"model":"qwen","choices":[{"index":0,"text":" upon","logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":null}

            data: {"id":"cmpl-11","object":"text_completion","created":1718000001,"model":"qwen","choices":[{"index":1,"text":" was","logprobs":null,"finish_reason":"stop","stop_reason":"\\n"}],"usage":null}

            data: [DONE]

            """;

    static final String VLLM_TEXT_N2_DOCUMENT = """
            {"id":"cmpl-11","object":"text_completion","created":1718000001,"model":"qwen","choices":[\
            {"index":0,"text":"Once upon","logprobs":null,"finish_reason":"length","stop_reason":null,"prompt_logprobs":null},\
            {"index":1,"text":"There was","logprobs":null,"finish_reason":"stop","stop_reason":"\\n","prompt_logprobs":null}]}""";

    /** Tool calls as vLLM's tool parsers stream them: id, type and name first, then argument pieces. */
    static final String VLLM_TOOL_CALLS = """
            data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1718000002,"model":"qwen","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}

            data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1718000002,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"id":"chatcmpl-tool-a1","type":"function","index":0,"function":{"name":"get_weather"}}]},"logprobs":null,"finish_reason":null}]}

            data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1718000002,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\": "}}]},"logprobs":null,"finish_reason":null}]}

            data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1718000002,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Paris\\"}"}}]},"logprobs":null,"finish_reason":null}]}

            data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1718000002,"model":"qwen","choices":[{"index":0,"delta":{"tool_calls":[{"id":"chatcmpl-tool-b2","type":"function","index":1,"function":{"name":"get_time","arguments":"{}"}}]},"logprobs":null,"finish_reason":null}]}

            data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1718000002,"model":"qwen","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"tool_calls","stop_reason":null}]}

            data: [DONE]

            """;

    @Test
    void completeDocument_vllmChatStream_equalsTheNonStreamedAnswer() {
        StreamAssembler assembler = assembleAtOnce(utf8(VLLM_CHAT));

        assertThat(assembler.done()).isTrue();
        assertThat(assembler.failed()).isFalse();
        assertThat(comparable(document(assembler), true)).isEqualTo(comparable(parse(VLLM_CHAT_DOCUMENT), true));
    }

    @Test
    void completeDocument_vllmTextStreamWithTwoChoices_equalsTheNonStreamedAnswer() {
        assertSameAnswer(document(assembleAtOnce(utf8(VLLM_TEXT_N2))), VLLM_TEXT_N2_DOCUMENT);
    }

    @Test
    void completeDocument_toolCalls_areAssembledByIndexWithArgumentsInOrder() {
        var document = document(assembleAtOnce(utf8(VLLM_TOOL_CALLS)));

        var message = document.path("choices").path(0).path("message");
        assertThat(document.path("object").asText()).isEqualTo("chat.completion");
        assertThat(message.path("content").asText()).isEmpty();
        assertThat(message.path("tool_calls")).isEqualTo(parse("""
                [{"id":"chatcmpl-tool-a1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": \\"Paris\\"}"}},
                 {"id":"chatcmpl-tool-b2","type":"function","function":{"name":"get_time","arguments":"{}"}}]"""));
        assertThat(document.path("choices").path(0).path("finish_reason").asText()).isEqualTo("tool_calls");
        assertThat(document.has("usage")).isFalse();
    }

    @Test
    void completeDocument_systemFingerprintRefusalAndReasoning_areKept() {
        String stream = """
                data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Think"},"finish_reason":null}]}

                data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"reasoning_content":"ing.","refusal":"No."},"finish_reason":"stop"}]}

                data: [DONE]

                """;

        var message = document(assembleAtOnce(utf8(stream))).path("choices").path(0).path("message");

        assertThat(document(assembleAtOnce(utf8(stream))).path("system_fingerprint").asText()).isEqualTo("fp_1");
        assertThat(message.path("reasoning_content").asText()).isEqualTo("Thinking.");
        assertThat(message.path("refusal").asText()).isEqualTo("No.");
        assertThat(message.path("content").isNull()).isTrue();
    }

    @Test
    void feed_byteByByte_equalsOneShot() {
        for (String stream : new String[] {VLLM_CHAT, VLLM_TEXT_N2, VLLM_TOOL_CALLS}) {
            byte[] body = utf8(stream);
            assertThat(assembleByteByByte(body).completeDocument().orElseThrow())
                    .isEqualTo(assembleAtOnce(body).completeDocument().orElseThrow());
        }
    }

    @Test
    void feed_splitAtEveryByte_survivesMultibyteCharactersAndCrLf() {
        byte[] body = utf8(VLLM_CHAT.replace("\n", "\r\n"));
        byte[] expected = assembleAtOnce(utf8(VLLM_CHAT)).completeDocument().orElseThrow();

        for (int split = 0; split <= body.length; split++) {
            StreamAssembler assembler = new StreamAssembler(1 << 20);
            assembler.feed(body, 0, split);
            assembler.feed(body, split, body.length - split);
            assertThat(assembler.completeDocument()).as("split at %d", split).hasValue(expected);
        }
    }

    @Test
    void feed_emptyPieceBetweenCrAndLf_isOneLineEnding() { // found by StreamAssemblerFuzzTest
        // An event over two data lines: a CR LF read as two line endings would dispatch half of it.
        byte[] body = utf8("data:{\"id\":\"c\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\r\n"
                + "data: \"choices\":[{\"index\":0,\"text\":\"hi\",\"finish_reason\":\"stop\"}]}\r\n\r\n"
                + "data:[DONE]\r\n\r\n");
        byte[] expected = assembleAtOnce(body).completeDocument().orElseThrow();
        int cr = new String(body, StandardCharsets.US_ASCII).indexOf('\r') + 1;

        StreamAssembler assembler = new StreamAssembler(1 << 20);
        assembler.feed(body, 0, cr);
        assembler.feed(body, cr, 0);
        assembler.feed(body, cr, body.length - cr);

        assertThat(assembler.completeDocument()).hasValue(expected);
    }

    @Test
    void feed_bareCarriageReturnsCommentsAndOtherFields_areHandledAsSse() {
        String stream = ": keep-alive\rid: 1\rretry: 100\r" + VLLM_TEXT_N2.replace("\n", "\r");

        assertSameAnswer(document(assembleAtOnce(utf8(stream))), VLLM_TEXT_N2_DOCUMENT);
    }

    @Test
    void feed_eventOverSeveralDataLines_joinsThemWithLineFeeds() {
        String stream = """
                data:{"id":"c","object":"text_completion","created":1,"model":"m",
                data: "choices":[{"index":0,"text":"hi","finish_reason":"stop"}]}

                data:[DONE]

                """;

        assertSameAnswer(document(assembleAtOnce(utf8(stream))), """
                {"id":"c","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"hi","finish_reason":"stop"}]}""");
    }

    @Test
    void completeDocument_withoutDone_isEmpty() {
        String truncated = VLLM_CHAT.substring(0, VLLM_CHAT.indexOf("data: [DONE]"));

        StreamAssembler assembler = assembleAtOnce(utf8(truncated));

        assertThat(assembler.done()).isFalse();
        assertThat(assembler.failed()).isFalse();
        assertThat(assembler.completeDocument()).isEmpty();
    }

    @Test
    void completeDocument_doneWithoutTheBlankLine_isEmpty() {
        String unterminated = VLLM_CHAT.substring(0, VLLM_CHAT.indexOf("data: [DONE]") + "data: [DONE]".length());

        assertThat(assembleAtOnce(utf8(unterminated)).completeDocument()).isEmpty();
    }

    @Test
    void completeDocument_errorEventMidStream_isEmpty() {
        String error = "data: {\"error\":{\"message\":\"Injected fault\",\"type\":\"InternalServerError\",\"param\":null,\"code\":500}}\n\n";
        String stream = VLLM_CHAT.replace("data: [DONE]", error + "data: [DONE]");

        StreamAssembler assembler = assembleAtOnce(utf8(stream));

        assertThat(assembler.completeDocument()).isEmpty();
        assertThat(assembler.failureReason()).hasValue("error event");
    }

    @Test
    void completeDocument_namedErrorEvent_isEmpty() {
        String stream = VLLM_CHAT.replace("data: [DONE]", "event: error\ndata: {\"message\":\"overloaded\"}\n\ndata: [DONE]");

        assertThat(assembleAtOnce(utf8(stream)).failureReason()).hasValue("error event");
    }

    @Test
    void completeDocument_choiceWithoutFinishReason_isEmpty() {
        String stream = VLLM_CHAT.replace("\"finish_reason\":\"stop\"", "\"finish_reason\":null");

        StreamAssembler assembler = assembleAtOnce(utf8(stream));

        assertThat(assembler.done()).isTrue();
        assertThat(assembler.completeDocument()).isEmpty();
        assertThat(assembler.failureReason()).hasValue("a choice has no finish_reason");
    }

    @Test
    void completeDocument_oneOfTwoChoicesUnfinished_isEmpty() {
        String stream = VLLM_TEXT_N2.replace("\"finish_reason\":\"length\"", "\"finish_reason\":null");

        assertThat(assembleAtOnce(utf8(stream)).completeDocument()).isEmpty();
    }

    @Test
    void feed_malformedJson_failsWithoutThrowing() {
        String stream = VLLM_CHAT.replace("{\"content\":\"Hello\"}", "{\"content\":\"Hello\"");

        StreamAssembler assembler = assembleAtOnce(utf8(stream));

        assertThat(assembler.completeDocument()).isEmpty();
        assertThat(assembler.failureReason()).hasValue("malformed JSON in an event");
    }

    @Test
    void feed_invalidUtf8OrWrongShapes_failWithoutThrowing() {
        byte[] invalidUtf8 = utf8(VLLM_CHAT);
        int at = new String(invalidUtf8, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("Hello");
        invalidUtf8[at] = (byte) 0xC3; // a lead byte followed by 'e': not UTF-8
        assertThat(assembleAtOnce(invalidUtf8).completeDocument()).isEmpty();

        for (String broken : new String[] {
                VLLM_CHAT.replace("\"choices\":[]", "\"choices\":{}"),
                VLLM_CHAT.replace("{\"content\":\"Hello\"}", "{\"content\":42}"),
                VLLM_CHAT.replace("\"index\":0,\"delta\":{\"content\":\"Hello\"}", "\"index\":-1,\"delta\":{\"content\":\"Hello\"}"),
                VLLM_CHAT.replace("\"object\":\"chat.completion.chunk\"", "\"object\":\"text_completion\""),
                VLLM_TOOL_CALLS.replace("[{\"index\":0,\"function\":{\"arguments\":\"{", "[{\"function\":{\"arguments\":\"{"),
                VLLM_CHAT.replace("{\"content\":\"Hello\"}", "{\"function_call\":{\"name\":\"f\"}}"),
                "data: [1,2]\n\ndata: [DONE]\n\n",
                "data: [DONE]\n\n",
        }) {
            StreamAssembler assembler = assembleAtOnce(utf8(broken));
            assertThat(assembler.completeDocument()).as(broken).isEmpty();
            assertThat(assembler.failed()).as(broken).isTrue();
        }
    }

    @Test
    void completeDocument_logprobs_makeTheAnswerUnstorable() {
        String stream = VLLM_CHAT.replace("{\"content\":\"Hello\"},\"logprobs\":null",
                "{\"content\":\"Hello\"},\"logprobs\":{\"content\":[{\"token\":\"Hello\",\"logprob\":-0.1,\"top_logprobs\":[]}]}");

        assertThat(assembleAtOnce(utf8(stream)).failureReason()).hasValue("logprobs are not stored");
    }

    @Test
    void feed_afterDone_isIgnored() {
        String stream = VLLM_CHAT + "data: {\"error\":{\"message\":\"late\"}}\n\n";

        assertThat(assembleAtOnce(utf8(stream)).completeDocument()).isPresent();
    }

    @Test
    void feed_overMaxBytes_failsAndStopsBuffering() {
        byte[] body = utf8(VLLM_CHAT);
        StreamAssembler exact = new StreamAssembler(body.length);
        exact.feed(body, 0, body.length);
        assertThat(exact.completeDocument()).isPresent();

        StreamAssembler bounded = new StreamAssembler(body.length - 1);
        bounded.feed(body, 0, body.length);
        assertThat(bounded.completeDocument()).isEmpty();
        assertThat(bounded.failureReason()).hasValue("larger than " + (body.length - 1) + " bytes");

        // One endless line, 4 GiB in all: buffered, it could not even fit in a Java array.
        StreamAssembler endless = new StreamAssembler(1 << 20);
        byte[] piece = new byte[1 << 20];
        Arrays.fill(piece, (byte) 'x');
        for (int i = 0; i < 4096; i++) {
            endless.feed(piece, 0, piece.length);
        }
        assertThat(endless.failureReason()).hasValue("larger than 1048576 bytes");
        assertThat(endless.completeDocument()).isEmpty();
    }

    @Test
    void constructor_nonPositiveMaxBytes_isRejected() {
        assertThatThrownBy(() -> new StreamAssembler(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxBytes");
    }

    @Test
    void feed_outOfRangeSlice_throws() {
        StreamAssembler assembler = new StreamAssembler(100);

        assertThatThrownBy(() -> assembler.feed(new byte[4], 2, 3)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
