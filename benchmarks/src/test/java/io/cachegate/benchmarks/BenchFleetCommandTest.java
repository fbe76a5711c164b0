package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure parts of {@code bench fleet}: its workload and its percentiles. */
class BenchFleetCommandTest {

    private static BenchFleetCommand command(int burst) {
        BenchFleetCommand c = new BenchFleetCommand();
        c.burst = burst;
        return c;
    }

    private static List<String> questions(List<byte[]> bodies) {
        List<String> out = new ArrayList<>();
        for (byte[] b : bodies) {
            String json = new String(b, StandardCharsets.UTF_8);
            out.add(json.substring(json.indexOf("Question ")));
        }
        return out;
    }

    @Test
    void workload_repeatShare_givesDistinctPromptsEachRepeatedEqually_burstCopiesAdjacent() {
        // 400 requests at repeat share 0.75: 100 distinct prompts, 4 copies each, the first 2 of each side by side.
        List<String> q = questions(command(2).workload("t", 400, 100));
        assertThat(q).hasSize(400);
        Map<String, Integer> copies = new HashMap<>();
        q.forEach(s -> copies.merge(s, 1, Integer::sum));
        assertThat(copies).hasSize(100);
        assertThat(copies.values()).allSatisfy(n -> assertThat(n).isEqualTo(4));
        for (int i = 0; i < 200; i += 2) {
            assertThat(q.get(i)).as("burst pair at " + i).isEqualTo(q.get(i + 1));
        }
        // Round-robin over two or three gateways puts the two copies of a burst on different gateways.
        assertThat(q.subList(0, 200).stream().distinct()).hasSize(100);
    }

    @Test
    void workload_noRepeats_everyRequestDistinct() {
        List<String> q = questions(command(2).workload("t", 50, 0));
        assertThat(q.stream().distinct()).hasSize(50);
    }

    @Test
    void workload_tagMakesItsOwnPrompts() {
        BenchFleetCommand c = command(2);
        assertThat(new String(c.workload("a", 10, 5).get(0), StandardCharsets.UTF_8))
                .isNotEqualTo(new String(c.workload("b", 10, 5).get(0), StandardCharsets.UTF_8));
    }

    @Test
    void percentile_nearestRank() {
        List<Double> sorted = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            sorted.add((double) i);
        }
        assertThat(BenchFleetCommand.percentile(sorted, 0.99)).isEqualTo(99.0);
        assertThat(BenchFleetCommand.percentile(sorted, 0.50)).isEqualTo(50.0);
        assertThat(BenchFleetCommand.percentile(List.of(), 0.99)).isNaN();
    }
}
