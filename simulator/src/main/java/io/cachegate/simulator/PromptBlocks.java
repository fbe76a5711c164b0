package io.cachegate.simulator;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A prompt cut into blocks for the prefix cache, each block named by a chained 64-bit hash (the
 * previous block's hash, then this block's content), as vLLM names its KV blocks. The chain starts
 * from the model name: two models never share a block. Only full blocks are hashed; the partial last
 * block is never cached, as in vLLM. Blocks are either a fixed number of characters (the default) or,
 * with {@code --kv-events}, a fixed number of token ids ({@link #ofTokens}).
 *
 * <p>The text of a chat request is each message's role, a newline, its content (text parts
 * concatenated) and a newline, in order: a minimal chat template, so moving text between
 * messages changes the prefix. The text of a completion is its prompt string, or the JSON of
 * a token-id or list prompt.
 *
 * <p>Token blocks' hashes are 63-bit (sign bit cleared, so they encode as positive msgpack integers):
 * {@code seed = mix(fnv(model's chars)) & MAX}, {@code h(i) = mix(fnv(h(i-1), block i's ids)) & MAX}
 * with {@code h(-1) = seed}, FNV-1a 64 over each id's four bytes, low byte first, seeded by the parent
 * hash, and SplitMix64's finaliser as {@code mix} (docs/simulator.md gives the same).
 */
final class PromptBlocks {

    static final PromptBlocks NONE = new PromptBlocks(new long[0], 0, null, 0);

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private final long[] chain;
    private final int chars;
    /** The prompt's token ids when blocks are token blocks, else null. */
    private final int[] tokens;
    private final int blockSize;

    private PromptBlocks(long[] chain, int chars, int[] tokens, int blockSize) {
        this.chain = chain;
        this.chars = chars;
        this.tokens = tokens;
        this.blockSize = blockSize;
    }

    static PromptBlocks ofChat(String model, JsonNode messages, int blockChars) {
        return of(model, chatText(messages), blockChars);
    }

    static PromptBlocks ofPrompt(String model, JsonNode prompt, int blockChars) {
        return of(model, promptText(prompt), blockChars);
    }

    /** The text of a chat request's messages, as the prefix cache (and the gateway) cut it. */
    static String chatText(JsonNode messages) {
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
        return text.toString();
    }

    /** The text of a completion's prompt: the string, or the JSON of a token-id or list prompt. */
    static String promptText(JsonNode prompt) {
        return prompt.isTextual() ? prompt.textValue() : prompt.toString();
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
        return new PromptBlocks(chain, text.length(), null, 0);
    }

    /** The full blocks of {@code blockSize} ids of {@code tokens} (kept, not copied), 63-bit hashes. */
    static PromptBlocks ofTokens(String model, int[] tokens, int blockSize) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
        long[] chain = new long[tokens.length / blockSize];
        long previous = seed(model);
        for (int b = 0; b < chain.length; b++) {
            previous = blockHash(previous, tokens, b * blockSize, (b + 1) * blockSize);
            chain[b] = previous;
        }
        return new PromptBlocks(chain, 0, tokens, blockSize);
    }

    /** The hash of the token block {@code tokens[from, to)} whose parent block hashes to {@code parent}. */
    static long blockHash(long parent, int[] tokens, int from, int to) {
        long h = parent;
        for (int i = from; i < to; i++) {
            int id = tokens[i];
            for (int shift = 0; shift < 32; shift += 8) {
                h = (h ^ ((id >>> shift) & 0xFF)) * FNV_PRIME;
            }
        }
        return mix(h) & Long.MAX_VALUE;
    }

    /** The parent of a model's first token block: like vLLM's NONE_HASH, but per model. */
    static long seed(String model) {
        return mix(fnv(FNV_OFFSET, model, 0, model.length())) & Long.MAX_VALUE;
    }

    /** The chained hashes of the full blocks, head first. Not a copy: do not modify. */
    long[] chain() {
        return chain;
    }

    /** Length of the prompt text, partial last block included; 0 for token blocks. */
    int chars() {
        return chars;
    }

    /** The blocks are token blocks. */
    boolean tokenized() {
        return tokens != null;
    }

    /** The prompt's token ids (token blocks only). Not a copy: do not modify. */
    int[] tokens() {
        return tokens;
    }

    /** Tokens per block (token blocks only). */
    int blockSize() {
        return blockSize;
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
