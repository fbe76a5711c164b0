package io.cachegate.gateway.dispatch;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import io.cachegate.admission.TokenEstimator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Counts prompt tokens with the model's own HuggingFace tokenizer (a route's {@code tokenizer:}), so a
 * request's cost is what the backend will really prefill. Runs on the event loop: the tokenizer is native
 * and takes microseconds for a prompt of normal length, and texts beyond {@link #MAX_EXACT_CHARS} are estimated
 * instead (over-estimated, like every estimate here) so a huge prompt never holds the loop.
 */
final class TokenizerCount implements TokenEstimator, AutoCloseable {

    /** About 16,000 tokens of English: beyond it a count would cost milliseconds. */
    static final int MAX_EXACT_CHARS = 64 * 1024;

    private final HuggingFaceTokenizer tokenizer;
    private final TokenEstimator fallback = TokenEstimator.heuristic();

    private TokenizerCount(HuggingFaceTokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    /** Loads {@code tokenizer.json}; blocks on disk, so call it at start-up. */
    static TokenizerCount load(Path tokenizerJson) {
        try {
            return new TokenizerCount(HuggingFaceTokenizer.newInstance(tokenizerJson, Map.of(
                    "truncation", "false", "padding", "false", "addSpecialTokens", "true")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load the tokenizer " + tokenizerJson, e);
        }
    }

    @Override
    public long estimate(CharSequence text) {
        if (text.length() == 0) {
            return 0;
        }
        if (text.length() > MAX_EXACT_CHARS) {
            return fallback.estimate(text);
        }
        return tokenizer.encode(text.toString()).getIds().length;
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}
