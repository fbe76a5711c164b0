package io.cachegate.simulator;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A prompt cut into blocks of a fixed number of characters for the prefix cache, each block
 * named by a chained 64-bit hash (the previous block's hash, then this block's characters), as
 * vLLM names its KV blocks. The chain starts from the model name: two models never share a
 * block. Only full blocks are hashed; the partial last block is never cached, as in vLLM.
 *
 * <p>The text of a chat request is each message's role, a newline, its content (text parts
 * concatenated) and a newline, in order: a minimal chat template, so moving text between
 * messages changes the prefix. The text of a completion is its prompt string, or the JSON of
 * a token-id or list prompt.
 */
final class PromptBlocks {

    static final PromptBlocks NONE = new PromptBlocks(new long[0], 0);

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private final long[] chain;
    private final int chars;

    private PromptBlocks(long[] chain, int chars) {
        this.chain = chain;
        this.chars = chars;
    }

    static PromptBlocks ofChat(String model, JsonNode messages, int blockChars) {
        StringBuilder text = new StringBuilder(256);
        for (JsonNode message : messages) {
            text.append(message.path("role").asText("")).append('\n');
            JsonNode content = message.get("content");
            if (content != null && content.isTextual()) {
                text.append(content.textValue());
            } else if (content != null && content.isArray()) {
                for (JsonNode part : content) {
                    text.append(part.path("text").asText(""));
                }
            }
            text.append('\n');
        }
        return of(model, text, blockChars);
    }

    static PromptBlocks ofPrompt(String model, JsonNode prompt, int blockChars) {
        return of(model, prompt.isTextual() ? prompt.textValue() : prompt.toString(), blockChars);
    }

    static PromptBlocks of(String model, CharSequence text, int blockChars) {
        if (blockChars < 1) {
            throw new IllegalArgumentException("blockChars must be >= 1, was " + blockChars);
        }
        long[] chain = new long[text.length() / blockChars];
        long previous = mix(fnv(FNV_OFFSET, model, 0, model.length()));
        for (int b = 0; b < chain.length; b++) {
            previous = mix(fnv(previous, text, b * blockChars, (b + 1) * blockChars));
            chain[b] = previous;
        }
        return new PromptBlocks(chain, text.length());
    }

    /** The chained hashes of the full blocks, head first. Not a copy: do not modify. */
    long[] chain() {
        return chain;
    }

    /** Length of the prompt text, partial last block included. */
    int chars() {
        return chars;
    }

    private static long fnv(long seed, CharSequence text, int from, int to) {
        long h = seed;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            h = (h ^ (c & 0xFF)) * FNV_PRIME;
            h = (h ^ (c >>> 8)) * FNV_PRIME;
        }
        return h;
    }

    /** SplitMix64's finaliser: FNV alone mixes its last characters poorly. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
