package io.cachegate.gateway.cache.audit;

import io.cachegate.cache.semantic.AnswerGroups;
import io.cachegate.cache.semantic.Embedder;
import io.cachegate.cache.semantic.Vectors;
import io.cachegate.gateway.cache.AnswerText;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Whether two answers to the same request agree: equal text (after collapsing white space) does; otherwise their
 * embeddings must be at least {@code answer_similarity} alike, because a sampling model rarely words an answer the
 * same way twice. Empty when they cannot be compared (no text in one, the embedder full or failing): no verdict.
 */
final class AnswerAgreement {

    private final Embedder embedder;
    private final double minSimilarity;

    AnswerAgreement(Embedder embedder, double minSimilarity) {
        this.embedder = embedder;
        this.minSimilarity = minSimilarity;
    }

    /** One answer's text and, once asked for, its vector: a fresh answer compared with several served ones. */
    final class Answer {
        private final String text;
        private CompletableFuture<float[]> vector;

        Answer(byte[] body) {
            this.text = AnswerGroups.normalize(AnswerText.of(null, body));
        }

        synchronized CompletableFuture<float[]> vector() {
            if (vector == null) {
                vector = embed(text);
            }
            return vector;
        }
    }

    Answer answer(byte[] body) {
        return new Answer(body);
    }

    /** True: they agree; false: they do not; empty: no verdict. */
    CompletableFuture<Optional<Boolean>> agree(Answer served, Answer fresh) {
        if (served.text.isEmpty() || fresh.text.isEmpty()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        if (served.text.equals(fresh.text)) {
            return CompletableFuture.completedFuture(Optional.of(true));
        }
        if (minSimilarity >= 1) {
            return CompletableFuture.completedFuture(Optional.of(false));
        }
        return served.vector().thenCombine(fresh.vector(),
                        (a, b) -> Optional.of(Vectors.cosine(a, b) >= minSimilarity))
                .exceptionally(error -> Optional.empty());
    }

    private CompletableFuture<float[]> embed(String text) {
        try {
            return embedder.embed(List.of(text)).thenApply(vectors -> vectors[0]);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
