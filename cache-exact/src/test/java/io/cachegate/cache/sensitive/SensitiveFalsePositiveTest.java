package io.cachegate.cache.sensitive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Ordinary text stays clean: every query and sentence of the shared evaluation data ({@code ../shared/data} beside
 * the repository: intent queries, question and paraphrase pairs, multi-turn conversations) is scanned, and the
 * few flagged are the ones that hold a real-looking address or number. Skipped where that folder is absent (a
 * user's clone has none).
 */
class SensitiveFalsePositiveTest {

    /** From this module's directory: the repository, then the folder beside it. */
    private static final Path DATA = Path.of("..", "..", "shared", "data");

    private final SensitiveDataDetector detector = SensitiveDataDetector.builtIn();

    @Test
    void scan_sharedEvaluationText_flagsAlmostNothing() throws IOException {
        assumeTrue(Files.isDirectory(DATA), "no ../shared/data beside the repository");
        Map<String, List<String>> flagged = new TreeMap<>();
        int texts = 0;
        for (String file : List.of("banking77_train.tsv", "clinc150_train.tsv", "clinc150_val.tsv", "qqp_dev.tsv",
                "mrpc_pairs.tsv", "sick_pairs.tsv", "gptcache_mock_pairs.tsv", "sharegpt_multiturn_prefix.jsonl")) {
            for (String text : texts(DATA.resolve(file))) {
                texts++;
                Findings findings = detector.scan(text);
                if (findings.any()) {
                    flagged.computeIfAbsent(file, f -> new ArrayList<>())
                            .add(findings.describe() + ": " + text.substring(0, Math.min(160, text.length())));
                }
            }
        }
        int count = flagged.values().stream().mapToInt(List::size).sum();
        System.out.printf("sensitive-data false positives: %d of %d texts flagged%n", count, texts);
        flagged.forEach((file, lines) -> lines.forEach(line -> System.out.println("  " + file + " " + line)));

        assertThat(texts).isGreaterThan(100_000);
        assertThat(flagged.get("banking77_train.tsv")).as("user queries to a bank").isNull();
        assertThat(flagged.get("clinc150_train.tsv")).as("assistant queries").isNull();
        assertThat(count).as("flagged in 100,000+ ordinary texts").isLessThanOrEqualTo(MAX_FLAGGED);
    }

    /** What the data holds that looks like data: see the printed list (phone numbers and e-mails in QQP/MRPC). */
    private static final int MAX_FLAGGED = 20;

    /** Every text of a file: the text columns of a TSV (not labels or scores), the input of each JSONL line. */
    private static List<String> texts(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        try (BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            if (file.toString().endsWith(".jsonl")) {
                ObjectMapper json = new ObjectMapper();
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    out.add(json.readTree(line).path("input").asText());
                }
                return out;
            }
            String[] header = lines.readLine().split("\t");
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                String[] cells = line.split("\t");
                for (int c = 0; c < cells.length && c < header.length; c++) {
                    if (header[c].startsWith("text")) {
                        out.add(cells[c]);
                    }
                }
            }
        }
        return out;
    }
}
