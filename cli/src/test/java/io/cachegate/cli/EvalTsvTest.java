package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvalTsvTest {

    @TempDir
    Path dir;

    private Path write(String name, String content) throws Exception {
        return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
    }

    @Test
    void pairs_skipHeaderAndReadLabels() throws Exception {
        Path file = write("pairs.tsv", "text_a\ttext_b\tlabel\n"
                + "How do I reset my password?\tI forgot my login, what now?\t1\n"
                + "Refund for annual plans\tRefund for monthly plans\t0\textra\n"
                + "\n"
                + "Is it raining?\tWill it rain today?\t1\n");
        List<EvalTsv.Pair> pairs = EvalTsv.pairs(file, 0, 0, 10);
        assertThat(pairs).extracting(EvalTsv.Pair::same).containsExactly(true, false, true);
        assertThat(pairs.get(1).textB()).isEqualTo("Refund for monthly plans");
    }

    @Test
    void pairs_offsetAndLimitTakeASlice() throws Exception {
        Path file = write("pairs.tsv", "a\tb\tlabel\nq1\tp1\t1\nq2\tp2\t0\nq3\tp3\t1\n");
        assertThat(EvalTsv.pairs(file, 0, 1, 1)).extracting(EvalTsv.Pair::textA).containsExactly("q2");
        assertThat(EvalTsv.pairs(file, 0, 5, 1)).isEmpty();
    }

    @Test
    void pairs_rejectABadLabelOrMissingColumns() throws Exception {
        assertThatThrownBy(() -> EvalTsv.pairs(write("bad.tsv", "a\tb\tlabel\nx\ty\tyes\n"), 0, 0, 10))
                .hasMessageContaining("label");
        assertThatThrownBy(() -> EvalTsv.pairs(write("short.tsv", "a\tb\tlabel\nx\ty\n"), 0, 0, 10))
                .hasMessageContaining("line 2");
    }

    @Test
    void queries_markOutOfScopeAndShuffleDeterministically() throws Exception {
        StringBuilder content = new StringBuilder("text\tintent\n");
        for (int i = 0; i < 20; i++) {
            content.append("question ").append(i).append('\t').append(i == 7 ? "oos" : "intent_" + (i % 3)).append('\n');
        }
        Path file = write("queries.tsv", content.toString());
        List<EvalTsv.Query> all = EvalTsv.queries(file, 0, 0, 100);
        assertThat(all).hasSize(20);
        assertThat(all.get(7).outOfScope()).isTrue();
        assertThat(all.get(6).outOfScope()).isFalse();

        List<EvalTsv.Query> first = EvalTsv.queries(file, 42, 0, 10);
        List<EvalTsv.Query> rest = EvalTsv.queries(file, 42, 10, 10);
        assertThat(EvalTsv.queries(file, 42, 0, 10)).isEqualTo(first);
        assertThat(first).doesNotContainAnyElementsOf(rest);
        assertThat(first).isNotEqualTo(all.subList(0, 10));
    }
}
