package io.cachegate.gateway.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.JsonLimits;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.gateway.api.OpenAiRequestParser;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The fast path's memo: found by exact bytes and endpoint, never by hash alone; bounded; failures not kept. */
class BodyMemoTest {

    private final OpenAiRequestParser parser = new OpenAiRequestParser(JsonLimits.defaults());
    private final AtomicInteger parses = new AtomicInteger();
    private final BodyMemo memo = new BodyMemo(BodyMemo.MAX_WEIGHT);

    @Test
    void repeat_isParsedOnce_andSharesItsFacts() {
        BodyFacts first = facts(Endpoint.CHAT_COMPLETIONS, chat("hello"));
        BodyFacts again = facts(Endpoint.CHAT_COMPLETIONS, chat("hello"));

        assertThat(again).isSameAs(first);
        assertThat(parses).hasValue(1);
    }

    @Test
    void bodiesWithTheSameHash_areTwoBodies() {
        // "Aa" and "BB" have the same 31-polynomial hash, so these bodies share Arrays.hashCode.
        byte[] aa = chat("Aa");
        byte[] bb = chat("BB");
        assertThat(Arrays.hashCode(aa)).isEqualTo(Arrays.hashCode(bb));

        BodyFacts first = facts(Endpoint.CHAT_COMPLETIONS, aa);
        BodyFacts second = facts(Endpoint.CHAT_COMPLETIONS, bb);

        assertThat(second).isNotSameAs(first);
        assertThat(OpenAiRequest.promptText(second.parsed().input())).contains("BB");
        assertThat(parses).hasValue(2);
    }

    @Test
    void sameBytes_otherEndpoint_isParsedForThatEndpoint() {
        byte[] body = "{\"model\":\"m\",\"prompt\":\"hi\",\"temperature\":0}".getBytes(StandardCharsets.UTF_8);
        BodyFacts completion = facts(Endpoint.COMPLETIONS, body);

        assertThat(completion.parsed().endpoint()).isEqualTo(Endpoint.COMPLETIONS);
        assertThatThrownBy(() -> facts(Endpoint.CHAT_COMPLETIONS, body)).hasMessageContaining("messages");
    }

    @Test
    void badBody_isRefusedEachTime_neverRemembered() {
        byte[] bad = "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> facts(Endpoint.CHAT_COMPLETIONS, bad)).hasMessageContaining("messages");
        assertThatThrownBy(() -> facts(Endpoint.CHAT_COMPLETIONS, bad)).hasMessageContaining("messages");
        assertThat(parses).hasValue(2);
        assertThat(memo.size()).isZero();
    }

    @Test
    void largeBody_isParsedEachTime() {
        byte[] large = chat("x".repeat(BodyMemo.MAX_BODY_BYTES));

        facts(Endpoint.CHAT_COMPLETIONS, large);
        facts(Endpoint.CHAT_COMPLETIONS, large);

        assertThat(parses).hasValue(2);
        assertThat(memo.size()).isZero();
    }

    @Test
    void derived_isComputedOncePerInputs_andBounded() {
        BodyFacts facts = facts(Endpoint.CHAT_COMPLETIONS, chat("hello"));
        AtomicInteger computed = new AtomicInteger();
        int extra = 4;
        for (int round = 0; round < 2; round++) {
            for (int tenant = 0; tenant < BodyFacts.MAX_DERIVED + extra; tenant++) {
                String inputs = "tenant-" + tenant;
                assertThat(facts.derive(inputs, String.class, () -> {
                    computed.incrementAndGet();
                    return "key of " + inputs;
                })).isEqualTo("key of " + inputs);
            }
        }

        // The first MAX_DERIVED inputs are kept; the others are computed on every call.
        assertThat(computed).hasValue(BodyFacts.MAX_DERIVED + 2 * extra);
    }

    private BodyFacts facts(Endpoint endpoint, byte[] body) {
        return memo.facts(endpoint, body, bytes -> {
            parses.incrementAndGet();
            return parser.parse(endpoint, bytes);
        });
    }

    private static byte[] chat(String text) {
        return ("{\"model\":\"m\",\"temperature\":0,\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}")
                .getBytes(StandardCharsets.UTF_8);
    }
}
