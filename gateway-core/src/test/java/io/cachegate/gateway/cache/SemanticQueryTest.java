package io.cachegate.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.CanonicalOptions;
import io.cachegate.cache.exact.Dialect;
import io.cachegate.cache.exact.ExactKeyFactory;
import io.cachegate.cache.exact.SemanticText;
import io.cachegate.config.Embed;
import io.cachegate.config.Normalize;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class SemanticQueryTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final CanonicalOptions OPTIONS = new CanonicalOptions(Normalize.NONE, false);
    private static final String SYSTEM = "{\"role\":\"system\",\"content\":\"You are a support bot.\"}";

    @Test
    void of_lastUserMessage_isTheTextAndTheRestIsTheScope() throws IOException {
        SemanticQuery a = query(chat(SYSTEM + ",{\"role\":\"user\",\"content\":\"How do I reset my password?\"}", ""));
        SemanticQuery b = query(chat(SYSTEM + ",{\"role\":\"user\",\"content\":\"I forgot my login, what now?\"}", ""));

        assertThat(a.text()).isEqualTo("How do I reset my password?");
        assertThat(b.text()).isEqualTo("I forgot my login, what now?");
        assertThat(a.scope()).as("the question is compared by meaning, not in the scope").isEqualTo(b.scope())
                .hasSize(64);
    }

    @Test
    void of_everythingElseThatDecidesTheAnswer_changesTheScope() throws IOException {
        String user = ",{\"role\":\"user\",\"content\":\"hi\"}";
        String base = query(chat(SYSTEM + user, "")).scope();

        assertThat(query(chat("{\"role\":\"system\",\"content\":\"You are a pirate.\"}" + user, "")).scope())
                .as("system prompt").isNotEqualTo(base);
        assertThat(query(chat(SYSTEM + user, ",\"max_tokens\":5")).scope()).as("sampling").isNotEqualTo(base);
        assertThat(query(chat(SYSTEM + user, ",\"seed\":3")).scope()).as("seed").isNotEqualTo(base);
        assertThat(query(chat(SYSTEM + user, ",\"response_format\":{\"type\":\"json_object\"}")).scope())
                .as("response format").isNotEqualTo(base);
        assertThat(query(chat(SYSTEM + user, ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]")).scope())
                .as("tools").isNotEqualTo(base);
        ObjectNode body = chat(SYSTEM + user, "");
        assertThat(prepare(Dialect.CHAT, body, Embed.LAST_USER, 1, "globex", "m@1", "ctx").query().get().scope())
                .as("tenant").isNotEqualTo(base);
        assertThat(prepare(Dialect.CHAT, body, Embed.LAST_USER, 1, "acme", "m@2", "ctx").query().get().scope())
                .as("model version").isNotEqualTo(base);
        assertThat(prepare(Dialect.CHAT, body, Embed.LAST_USER, 1, "acme", "m@1", "other").query().get().scope())
                .as("context").isNotEqualTo(base);
        assertThat(prepare(Dialect.CHAT, body, Embed.ALL_USER, 1, "acme", "m@1", "ctx").query().get().scope())
                .as("embed mode").isNotEqualTo(base);
    }

    @Test
    void of_earlierTurns_areInTheScope_andLimitedByMaxTurns() throws IOException {
        String turns = SYSTEM + ",{\"role\":\"user\",\"content\":\"first\"},{\"role\":\"assistant\",\"content\":\"ok\"},";
        ObjectNode one = chat(turns + "{\"role\":\"user\",\"content\":\"second\"}", "");
        ObjectNode other = chat(turns.replace("first", "another") + "{\"role\":\"user\",\"content\":\"second\"}", "");

        assertThat(prepare(Dialect.CHAT, one, Embed.LAST_USER, 1, "acme", "m@1", "ctx").reason())
                .contains(SemanticText.Ineligible.TOO_MANY_TURNS);
        SemanticQuery a = prepare(Dialect.CHAT, one, Embed.LAST_USER, 2, "acme", "m@1", "ctx").query().get();
        SemanticQuery b = prepare(Dialect.CHAT, other, Embed.LAST_USER, 2, "acme", "m@1", "ctx").query().get();
        assertThat(a.text()).isEqualTo("second");
        assertThat(a.scope()).isNotEqualTo(b.scope());

        SemanticQuery all = prepare(Dialect.CHAT, one, Embed.ALL_USER, 2, "acme", "m@1", "ctx").query().get();
        assertThat(all.text()).isEqualTo("first\nsecond");
    }

    @Test
    void of_whatCannotBeEmbeddedSafely_isIneligible() throws IOException {
        assertThat(reason(chat(SYSTEM + ",{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":"
                + "{\"url\":\"http://x/y.png\"}}]}", ""))).isEqualTo(SemanticText.Ineligible.NOT_TEXT);
        assertThat(reason(chat("{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\",\"content\":null,"
                + "\"tool_calls\":[]},{\"role\":\"tool\",\"tool_call_id\":\"1\",\"content\":\"42\"}", "")))
                .as("a conversation ending with a tool result").isEqualTo(SemanticText.Ineligible.NOT_TEXT);
        assertThat(reason(chat(SYSTEM, ""))).as("no user message").isEqualTo(SemanticText.Ineligible.NOT_TEXT);
        assertThat(reason(chat("{\"role\":\"user\",\"content\":\"  \"}", ""))).isEqualTo(SemanticText.Ineligible.EMPTY);
        assertThat(reason(chat("{\"role\":\"user\",\"content\":\"" + "x".repeat(511) + "\"}", "")))
                .as("longer than the embedder reads").isEqualTo(SemanticText.Ineligible.TOO_LONG);
    }

    @Test
    void of_textParts_areJoined() throws IOException {
        SemanticQuery q = query(chat("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                + "{\"type\":\"text\",\"text\":\"b\"}]}", ""));

        assertThat(q.text()).isEqualTo("a\nb");
    }

    @Test
    void of_completion_embedsAStringPrompt() throws IOException {
        ObjectNode body = (ObjectNode) JSON.readTree("{\"model\":\"m\",\"prompt\":\"Once upon a time\",\"temperature\":0}");
        ObjectNode list = (ObjectNode) JSON.readTree("{\"model\":\"m\",\"prompt\":[\"a\",\"b\"],\"temperature\":0}");

        assertThat(prepare(Dialect.COMPLETIONS, body, Embed.LAST_USER, 1, "acme", "m@1", "ctx").query().get().text())
                .isEqualTo("Once upon a time");
        assertThat(prepare(Dialect.COMPLETIONS, list, Embed.LAST_USER, 1, "acme", "m@1", "ctx").reason())
                .contains(SemanticText.Ineligible.NOT_TEXT);
    }

    @Test
    void of_leavesTheRequestBodyUntouched() throws IOException {
        ObjectNode body = chat(SYSTEM + ",{\"role\":\"user\",\"content\":\"hi\"}", "");
        String before = body.toString();

        query(body);

        assertThat(body.toString()).isEqualTo(before);
    }

    @Test
    void of_responses_stringInputOrLastUserItem_isTheText_instructionsInTheScope() throws IOException {
        SemanticQuery a = prepare(Dialect.RESPONSES, responses("\"How do I reset my password?\"", "bot"),
                Embed.LAST_USER, 1, "acme", "m@1", "ctx").query().orElseThrow();
        SemanticQuery b = prepare(Dialect.RESPONSES, responses("\"I forgot my login\"", "bot"),
                Embed.LAST_USER, 1, "acme", "m@1", "ctx").query().orElseThrow();
        SemanticQuery parts = prepare(Dialect.RESPONSES, responses("[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"input_text\",\"text\":\"How do I reset my password?\"}]}]", "bot"),
                Embed.LAST_USER, 1, "acme", "m@1", "ctx").query().orElseThrow();
        SemanticQuery pirate = prepare(Dialect.RESPONSES, responses("\"I forgot my login\"", "pirate"),
                Embed.LAST_USER, 1, "acme", "m@1", "ctx").query().orElseThrow();

        assertThat(a.text()).isEqualTo("How do I reset my password?");
        assertThat(parts.text()).isEqualTo(a.text());
        assertThat(a.scope()).isEqualTo(b.scope());
        assertThat(pirate.scope()).as("instructions").isNotEqualTo(b.scope());
        assertThat(parts.scope()).as("a string input and an item list are different requests").isNotEqualTo(a.scope());
        assertThat(a.scope()).as("another endpoint").isNotEqualTo(query(chat(
                "{\"role\":\"user\",\"content\":\"How do I reset my password?\"}", "")).scope());
        assertThat(prepare(Dialect.RESPONSES, responses("[{\"role\":\"user\",\"content\":\"hi\"},"
                + "{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":\"1\"}]", "bot"),
                Embed.LAST_USER, 1, "acme", "m@1", "ctx").reason()).as("ends with a tool result")
                .contains(SemanticText.Ineligible.NOT_TEXT);
    }

    private static ObjectNode responses(String input, String instructions) throws IOException {
        return (ObjectNode) JSON.readTree("{\"model\":\"m\",\"temperature\":0,\"instructions\":\"" + instructions
                + "\",\"input\":" + input + "}");
    }

    private static SemanticQuery query(ObjectNode body) {
        return prepare(Dialect.CHAT, body, Embed.LAST_USER, 1, "acme", "m@1", "ctx").query().orElseThrow();
    }

    private static SemanticText.Ineligible reason(ObjectNode body) {
        return prepare(Dialect.CHAT, body, Embed.LAST_USER, 1, "acme", "m@1", "ctx").reason().orElseThrow();
    }

    private static SemanticQuery.Prepared prepare(Dialect kind, ObjectNode body, Embed embed, int maxTurns,
                                                  String tenant, String version, String context) {
        return SemanticQuery.of(kind, body, embed, maxTurns, 510, OPTIONS, new ExactKeyFactory(), tenant, version, context);
    }

    private static ObjectNode chat(String messages, String extra) throws IOException {
        return (ObjectNode) JSON.readTree("{\"model\":\"m\",\"temperature\":0,\"messages\":[" + messages + "]" + extra + "}");
    }
}
