package io.cachegate.gateway;

import io.cachegate.simulator.AnswerBook;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Questions about resetting a password for the fleet tests, with the simulator's answer book for them: the
 * {@code OTHER} ones sit within cosine 0.9 of the others but carry another answer, so a cosine decision serves them a
 * wrong one and an audit (answers compared as text) finds it.
 */
final class ConfusableQuestions {

    static final String RESET = "How do I reset my password?";
    static final String RESET_OTHER = "How can I reset my password?";
    static final String RESET_OTHER_AGAIN = "How can I reset my password??";
    static final String RESET_CLOSE = "How could I reset my password?";
    static final String RESET_AGAIN = "How do I reset my password??";

    private ConfusableQuestions() {
    }

    /** The answer book: each question answered by its label's canonical answer. */
    static AnswerBook answers() throws IOException {
        Path file = Files.createTempFile("cachegate-confusable", ".tsv");
        Files.writeString(file, "text\tlabel\n" + RESET + "\tpassword\n" + RESET_OTHER + "\tpassword_other\n"
                + RESET_OTHER_AGAIN + "\tpassword_other\n" + RESET_CLOSE + "\tpassword\n" + RESET_AGAIN
                + "\tpassword\n");
        return AnswerBook.load(file);
    }
}
