package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.json;
import static io.cachegate.simulator.TestHttp.post;
import static io.cachegate.simulator.TestHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --answers}: paraphrases of one label get its one answer; other texts are generated as before. */
class AnswerBookTest {

    private static final String CHAT = "/v1/chat/completions";

    @TempDir
    Path dir;
    private BackendSimulator sim;

    @AfterEach
    void stop() {
        if (sim != null) {
            sim.close();
        }
    }

    private AnswerBook book() throws IOException {
        Path tsv = dir.resolve("intents.tsv");
        Files.writeString(tsv, """
                text\tintent
                Where is my new card?\tcard_arrival
                My card still has not arrived\tcard_arrival
                How do I reset my PIN?\tchange_pin
                """);
        return AnswerBook.load(tsv);
    }

    private static String chat(String text, String extra) {
        return "{\"model\":\"llama-3.1-8b\"" + extra + ",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief\"},"
                + "{\"role\":\"user\",\"content\":" + TestHttp.quote(text) + "}]}";
    }

    private String content(String text, String extra) {
        JsonNode answer = json(post(sim, CHAT, chat(text, extra)).body());
        return answer.path("choices").path(0).path("message").path("content").asText();
    }

    @Test
    void sameLabel_sameAnswer_otherLabel_otherAnswer_unknownText_generated() throws IOException {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withAnswers(book()));

        String a = content("Where is my new card?", "");
        String b = content("  my card STILL has not   arrived ", "");
        String pin = content("How do I reset my PIN?", "");
        String other = content("What is the weather like?", "");

        assertThat(a).isEqualTo(b).isEqualTo(AnswerBook.answerText("card_arrival")).startsWith(" [card_arrival]");
        assertThat(pin).isEqualTo(AnswerBook.answerText("change_pin")).isNotEqualTo(a);
        assertThat(other).doesNotContain("[").hasSizeGreaterThan(10);
        JsonNode whole = json(post(sim, CHAT, chat("Where is my new card?", "")).body());
        assertThat(whole.path("choices").path(0).path("finish_reason").asText()).isEqualTo("stop");
        assertThat(whole.path("usage").path("completion_tokens").asInt()).isEqualTo(AnswerBook.ANSWER_WORDS + 1);
    }

    @Test
    void streamed_isTheSameText_andMaxTokens_truncatesWithLength() throws IOException {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withAnswers(book()));

        List<String> events = sseData(post(sim, CHAT, chat("Where is my new card?", ",\"stream\":true")).body());
        StringBuilder streamed = new StringBuilder();
        for (String event : events.subList(0, events.size() - 1)) {
            streamed.append(json(event).path("choices").path(0).path("delta").path("content").asText(""));
        }
        assertThat(streamed.toString()).isEqualTo(AnswerBook.answerText("card_arrival"));

        JsonNode cut = json(post(sim, CHAT, chat("Where is my new card?", ",\"max_tokens\":3")).body());
        assertThat(cut.path("choices").path(0).path("finish_reason").asText()).isEqualTo("length");
        assertThat(cut.path("usage").path("completion_tokens").asInt()).isEqualTo(3);
        assertThat(cut.path("choices").path(0).path("message").path("content").asText())
                .isEqualTo(AnswerBook.answerText("card_arrival").substring(0,
                        String.join("", List.of(AnswerBook.answer("card_arrival")).subList(0, 3)).length()));
    }

    @Test
    void load_refusesRowsWithoutALabel_andEmptyFiles() throws IOException {
        Path bad = dir.resolve("bad.tsv");
        Files.writeString(bad, "text\tintent\nno label here\n");
        assertThatThrownBy(() -> AnswerBook.load(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad.tsv:2");
        Path empty = dir.resolve("empty.tsv");
        Files.writeString(empty, "text\tintent\n");
        assertThatThrownBy(() -> AnswerBook.load(empty)).hasMessageContaining("no text<TAB>label rows");
    }
}
