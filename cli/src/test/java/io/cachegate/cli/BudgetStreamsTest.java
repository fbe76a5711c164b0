package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --stream-seed}: the rows an {@code @OFFSET} leaves, in another order, cut after the shuffle. */
class BudgetStreamsTest {

    @TempDir
    Path data;

    @Test
    void aStreamSeed_reordersTheRowsAfterTheOffset_andCutsAfterTheShuffle() throws Exception {
        List<String> lines = new ArrayList<>(List.of("text\tintent"));
        for (int i = 0; i < 300; i++) {
            lines.add("question number " + i + "\tintent_" + i % 7);
        }
        Files.write(data.resolve("banking77_train.tsv"), lines, StandardCharsets.UTF_8);

        BudgetStreams.Stream plain = BudgetStreams.load(data, "banking77@100", 42, 1000);
        BudgetStreams.Stream reshuffled = BudgetStreams.load(data, "banking77@100", 42, 7L, 1000);
        BudgetStreams.Stream cut = BudgetStreams.load(data, "banking77@100", 42, 7L, 50);
        BudgetStreams.Stream otherSeed = BudgetStreams.load(data, "banking77@100", 42, 8L, 50);

        assertThat(plain.texts()).hasSize(200);
        assertThat(BudgetStreams.load(data, "banking77@100", 42, null, 1000).texts()).isEqualTo(plain.texts());
        assertThat(new HashSet<>(reshuffled.texts())).as("the same rows").isEqualTo(new HashSet<>(plain.texts()));
        assertThat(reshuffled.texts()).as("in another order").isNotEqualTo(plain.texts());
        assertThat(cut.texts()).as("cut after the shuffle").isEqualTo(reshuffled.texts().subList(0, 50));
        assertThat(otherSeed.texts()).isNotEqualTo(cut.texts());
        for (int i = 0; i < cut.texts().size(); i++) {
            String text = cut.texts().get(i);
            int n = Integer.parseInt(text.substring("question number ".length()));
            assertThat(cut.answers().get(i)).as("answers travel with their texts").isEqualTo("intent_" + n % 7);
        }
    }
}
