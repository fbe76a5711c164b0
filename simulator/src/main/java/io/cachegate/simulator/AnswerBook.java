package io.cachegate.simulator;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A backend that knows when paraphrases mean the same: labelled texts ({@code text<TAB>label} with a header line,
 * the format of the shared intent data), each answered with its label's canonical answer. Every text of a label
 * gets the same answer, word for word, and no other label's; a text the book does not hold is generated as usual.
 * So a cached answer served for a request is right exactly when it equals what the backend answers that request:
 * a test or a benchmark can tell a right semantic hit from a wrong one.
 */
public final class AnswerBook {

    /** No book: every request is generated. */
    public static final AnswerBook NONE = new AnswerBook(Map.of(), "");

    /** Words in a canonical answer after its label. */
    static final int ANSWER_WORDS = 12;

    private final Map<String, String> labels;
    private final String source;

    private AnswerBook(Map<String, String> labels, String source) {
        this.labels = labels;
        this.source = source;
    }

    /**
     * Reads a TSV of {@code text<TAB>label} rows after one header line. A text listed under two labels keeps the
     * first (a backend answers one thing); blank lines are skipped.
     *
     * @throws IllegalArgumentException a row without a tab, or a file with no rows
     */
    public static AnswerBook load(Path tsv) throws IOException {
        Map<String, String> labels = new HashMap<>();
        try (BufferedReader in = Files.newBufferedReader(tsv, StandardCharsets.UTF_8)) {
            String line = in.readLine(); // the header
            int number = 1;
            while ((line = in.readLine()) != null) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                int tab = line.lastIndexOf('\t');
                if (tab <= 0 || tab == line.length() - 1) {
                    throw new IllegalArgumentException(tsv + ":" + number + ": expected text<TAB>label");
                }
                labels.putIfAbsent(normalize(line.substring(0, tab)), line.substring(tab + 1).strip());
            }
        }
        if (labels.isEmpty()) {
            throw new IllegalArgumentException(tsv + ": no text<TAB>label rows after the header");
        }
        return new AnswerBook(Map.copyOf(labels), tsv.toString());
    }

    /** The label of {@code text} (compared without case and extra whitespace), if the book holds it. */
    public Optional<String> label(String text) {
        return labels.isEmpty() || text == null ? Optional.empty() : Optional.ofNullable(labels.get(normalize(text)));
    }

    /**
     * The canonical answer of {@code label} as tokens (each a word with its leading space): the label, then words
     * drawn from a seed of the label alone, so it is the same on every replica and run.
     */
    public static String[] answer(String label) {
        String[] words = CompletionGenerator.tokens(seed(label), 0, ANSWER_WORDS);
        String[] tokens = new String[words.length + 1];
        tokens[0] = " [" + label + "]";
        System.arraycopy(words, 0, tokens, 1, words.length);
        return tokens;
    }

    /** The canonical answer of {@code label} as text, as a chat completion's content holds it. */
    public static String answerText(String label) {
        return String.join("", answer(label));
    }

    public boolean isEmpty() {
        return labels.isEmpty();
    }

    public int size() {
        return labels.size();
    }

    @Override
    public String toString() {
        return labels.isEmpty() ? "AnswerBook[none]" : "AnswerBook[" + labels.size() + " texts from " + source + "]";
    }

    private static String normalize(String text) {
        return text.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    }

    private static long seed(String label) {
        long h = 1125899906842597L;
        for (int i = 0; i < label.length(); i++) {
            h = 31 * h + label.charAt(i);
        }
        return h;
    }
}
