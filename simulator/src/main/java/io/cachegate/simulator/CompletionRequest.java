package io.cachegate.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * What the simulator needs of a chat, text completion or Responses API request, read from its JSON body.
 * Prompt tokens are an approximation: whitespace-separated words of all message contents (or of
 * the prompt, or of the instructions and input), or the length of a token-id prompt; the simulator has no
 * tokenizer.
 *
 * @param body the request body (a response object echoes its request's settings)
 */
record CompletionRequest(Kind kind, String model, boolean stream, boolean includeUsage, int maxTokens,
                         boolean maxTokensGiven, int n, int promptTokens, RequestHash hash, PromptBlocks prefix,
                         String lastUserText, String[] answer, JsonNode body) {

    private static final int MAX_N = 128;
    private static final int MAX_TOKENS_LIMIT = 1 << 20;

    enum Kind { CHAT, TEXT, RESPONSES }

    static CompletionRequest parse(Kind kind, JsonNode body, List<String> models, int defaultMaxTokens) {
        return parse(kind, body, models, defaultMaxTokens, 0);
    }

    /** As above, with the prompt cut into prefix-cache blocks of {@code prefixBlockChars}; 0 skips that. */
    static CompletionRequest parse(Kind kind, JsonNode body, List<String> models, int defaultMaxTokens,
                                   int prefixBlockChars) {
        if (!body.isObject()) {
            throw InvalidRequestException.badRequest("The request body must be a JSON object.", null);
        }
        String model = ModelResolver.resolve(body, models);
        boolean stream = body.path("stream").asBoolean(false);
        boolean includeUsage = stream && body.path("stream_options").path("include_usage").asBoolean(false);

        JsonNode maxNode = kind == Kind.RESPONSES ? body.get("max_output_tokens")
                : kind == Kind.CHAT && body.hasNonNull("max_completion_tokens")
                ? body.get("max_completion_tokens") : body.get("max_tokens");
        boolean maxGiven = maxNode != null && !maxNode.isNull();
        int maxTokens = defaultMaxTokens;
        if (maxGiven) {
            if (!maxNode.canConvertToInt() || maxNode.asInt() < 1 || maxNode.asInt() > MAX_TOKENS_LIMIT) {
                throw InvalidRequestException.badRequest("max_tokens must be at least 1, got " + maxNode + ".",
                        "max_tokens");
            }
            maxTokens = maxNode.asInt();
        }

        JsonNode nNode = kind == Kind.RESPONSES ? null : body.get("n"); // one output: the Responses API has no n
        int n = 1;
        if (nNode != null && !nNode.isNull()) {
            if (!nNode.canConvertToInt() || nNode.asInt() < 1 || nNode.asInt() > MAX_N) {
                throw InvalidRequestException.badRequest("n must be between 1 and " + MAX_N + ", got " + nNode + ".", "n");
            }
            n = nNode.asInt();
        }

        if (kind == Kind.RESPONSES) {
            String prompt = ResponsesInput.promptText(body);
            PromptBlocks prefix = prefixBlockChars > 0 ? PromptBlocks.of(model, prompt, prefixBlockChars)
                    : PromptBlocks.NONE;
            return new CompletionRequest(kind, model, stream, false, maxTokens, maxGiven, 1, countWords(prompt),
                    RequestHash.ofRequest(body), prefix, ResponsesInput.lastUserText(body), null, body);
        }
        int promptTokens = kind == Kind.CHAT ? chatPromptTokens(body) : textPromptTokens(body);
        PromptBlocks prefix = PromptBlocks.NONE;
        if (prefixBlockChars > 0) { // validated above: messages or prompt is present
            prefix = kind == Kind.CHAT ? PromptBlocks.ofChat(model, body.get("messages"), prefixBlockChars)
                    : PromptBlocks.ofPrompt(model, body.get("prompt"), prefixBlockChars);
        }
        String lastUser = kind == Kind.CHAT ? lastUserText(body.get("messages"))
                : body.path("prompt").isTextual() ? body.get("prompt").textValue() : null;
        return new CompletionRequest(kind, model, stream, includeUsage, maxTokens, maxGiven, n, promptTokens,
                RequestHash.ofRequest(body), prefix, lastUser, null, body);
    }

    /**
     * The prompt's text as the prefix cache cuts it (see {@link PromptBlocks}): chat messages through the minimal
     * template, a completion's prompt, a response's instructions and input. Call after {@link #parse} validated it.
     */
    String promptText() {
        return switch (kind) {
            case CHAT -> PromptBlocks.chatText(body.get("messages"));
            case TEXT -> PromptBlocks.promptText(body.get("prompt"));
            case RESPONSES -> ResponsesInput.promptText(body);
        };
    }

    /** This request with its prompt cut into {@code blocks}; token blocks also give the exact prompt tokens. */
    CompletionRequest withPrefix(PromptBlocks blocks) {
        int tokens = blocks.tokenized() ? blocks.tokens().length : promptTokens;
        return new CompletionRequest(kind, model, stream, includeUsage, maxTokens, maxTokensGiven, n, tokens, hash,
                blocks, lastUserText, answer, body);
    }

    /**
     * This request answered with {@code tokens} (an {@link AnswerBook} answer) instead of generated words: all of
     * them when they fit in an explicit {@code max_tokens}, else as many as it allows.
     */
    CompletionRequest answeredWith(String[] tokens) {
        int count = maxTokensGiven ? Math.min(maxTokens, tokens.length) : tokens.length;
        return new CompletionRequest(kind, model, stream, includeUsage, count, maxTokensGiven, n, promptTokens, hash,
                prefix, lastUserText, java.util.Arrays.copyOf(tokens, count), body);
    }

    /** {@code length} when generation stopped at {@code max_tokens}, else {@code stop}. */
    String finishReason() {
        if (answer != null) {
            return answer.length < AnswerBook.ANSWER_WORDS + 1 ? "length" : "stop";
        }
        return maxTokensGiven ? "length" : "stop";
    }

    /** The text of the last user message (content parts joined), or null. */
    static String lastUserText(JsonNode messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            JsonNode message = messages.get(i);
            if ("user".equals(message.path("role").asText())) {
                JsonNode content = message.get("content");
                if (content != null && content.isTextual()) {
                    return content.textValue();
                }
                if (content != null && content.isArray()) {
                    StringBuilder text = new StringBuilder();
                    content.forEach(part -> text.append(part.path("text").asText("")));
                    return text.toString();
                }
                return null;
            }
        }
        return null;
    }

    private static int chatPromptTokens(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw InvalidRequestException.badRequest("messages must be a non-empty array.", "messages");
        }
        int words = 0;
        for (JsonNode message : messages) {
            JsonNode content = message.get("content");
            if (content == null || content.isNull()) {
                continue;
            }
            if (content.isTextual()) {
                words += countWords(content.textValue());
            } else if (content.isArray()) { // content parts: [{"type":"text","text":"..."}, ...]
                for (JsonNode part : content) {
                    words += countWords(part.path("text").asText(""));
                }
            }
        }
        return words;
    }

    private static int textPromptTokens(JsonNode body) {
        JsonNode prompt = body.get("prompt");
        if (prompt == null || prompt.isNull()) {
            throw InvalidRequestException.badRequest("prompt is required.", "prompt");
        }
        return countPrompt(prompt);
    }

    private static int countPrompt(JsonNode prompt) {
        if (prompt.isTextual()) {
            return countWords(prompt.textValue());
        }
        if (prompt.isNumber()) {
            return 1; // one token id of a token-id prompt
        }
        int total = 0;
        for (JsonNode element : prompt) {
            total += countPrompt(element);
        }
        return total;
    }

    static int countWords(String text) {
        int words = 0;
        boolean inWord = false;
        for (int i = 0; i < text.length(); i++) {
            boolean space = Character.isWhitespace(text.charAt(i));
            if (!space && !inWord) {
                words++;
            }
            inWord = !space;
        }
        return words;
    }
}
