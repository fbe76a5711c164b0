package io.cachegate.cache.exact;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Rebuilds the non-streaming answer from a streamed chat or text completion (the raw SSE body, fed
 * in any pieces) so a streamed miss can be stored. Any doubt makes the answer unstorable rather
 * than wrong, and memory is bounded by {@code maxBytes}. Not thread-safe: one per streamed answer.
 */
public final class StreamAssembler implements AnswerAssembler {

    private static final String CHAT_CHUNK = "chat.completion.chunk";
    private static final String TEXT_COMPLETION = "text_completion";
    private static final byte[] DONE = {'[', 'D', 'O', 'N', 'E', ']'};
    /** Strict on duplicates and trailing garbage: an answer we may have misread is not stored. */
    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final SseEventReader reader;
    private final TreeMap<Integer, AssembledChoice> choices = new TreeMap<>();
    private String object;
    private JsonNode id;
    private JsonNode created;
    private JsonNode model;
    private JsonNode systemFingerprint;
    private JsonNode usage;
    private boolean done;
    private String failure;

    /** @param maxBytes the largest response body (in bytes, framing included) that may be stored */
    public StreamAssembler(int maxBytes) {
        this.reader = new SseEventReader(this::onEvent, maxBytes);
    }

    /**
     * Feeds the next piece of the response body. Never throws on bad input: a malformed stream, an
     * error event, logprobs (which a replay could not carry) or more than {@code maxBytes} make the
     * answer unstorable. Bytes after {@code data: [DONE]} are ignored (and not counted against the limit).
     */
    @Override
    public void feed(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        if (failure != null || done) {
            return;
        }
        // Only the first maxBytes are read, however the body is cut into pieces: a stream whose [DONE] came
        // within them is whole, one still going past them is too large (found by StreamAssemblerFuzzTest).
        if (!reader.feed(bytes, offset, length) && !done && failure == null) {
            fail("larger than " + reader.maxBytes() + " bytes");
        }
    }

    /** True once {@code data: [DONE]} was read (the answer may still be unstorable). */
    public boolean done() {
        return done;
    }

    public boolean failed() {
        return failure != null;
    }

    /** Why the answer cannot be stored, a short fixed phrase fit for a log line. */
    public Optional<String> failureReason() {
        return Optional.ofNullable(failure);
    }

    /**
     * The equivalent non-streaming {@code chat.completion} or {@code text_completion} as JSON, once
     * {@code [DONE]} came and every choice has a finish reason; empty otherwise. {@code usage} is
     * present only if the stream carried it. Builds a new document on each call.
     */
    @Override
    public Optional<byte[]> completeDocument() {
        if (!done || failure != null) {
            return Optional.empty();
        }
        JsonNodeFactory nodes = JSON.getNodeFactory();
        boolean chat = object.equals(CHAT_CHUNK);
        ObjectNode document = nodes.objectNode();
        document.set("id", id);
        document.put("object", chat ? "chat.completion" : TEXT_COMPLETION);
        document.set("created", created);
        document.set("model", model);
        if (systemFingerprint != null) {
            document.set("system_fingerprint", systemFingerprint);
        }
        ArrayNode array = document.putArray("choices");
        for (AssembledChoice choice : choices.values()) {
            array.add(chat ? choice.chatChoice(nodes) : choice.textChoice(nodes));
        }
        if (usage != null) {
            document.set("usage", usage);
        }
        try {
            return Optional.of(JSON.writeValueAsBytes(document));
        } catch (IOException e) {
            throw new UncheckedIOException("serialising a tree cannot fail", e);
        }
    }

    private void onEvent(String type, byte[] data, int length) {
        if (failure != null || done) {
            return;
        }
        if (type != null && !type.equals("message")) {
            fail(type.equals("error") ? "error event" : "unexpected event type");
        } else if (length == DONE.length && Arrays.equals(data, 0, length, DONE, 0, length)) {
            onDone();
        } else if (length > 0) {
            JsonNode chunk;
            try {
                chunk = JSON.readTree(data, 0, length);
            } catch (IOException e) {
                fail("malformed JSON in an event");
                return;
            }
            onChunk(chunk);
        }
    }

    private void onChunk(JsonNode chunk) {
        if (!chunk.isObject()) {
            fail("event is not a JSON object");
            return;
        }
        if (chunk.hasNonNull("error") || "error".equals(chunk.path("object").asText())) {
            fail("error event");
            return;
        }
        String chunkObject = chunk.path("object").asText();
        if (!chunkObject.equals(CHAT_CHUNK) && !chunkObject.equals(TEXT_COMPLETION)) {
            fail("unknown object type");
            return;
        }
        if (object == null) {
            object = chunkObject;
        } else if (!object.equals(chunkObject)) {
            fail("object type changed mid-stream");
            return;
        }
        id = firstText(id, chunk.path("id"));
        model = firstText(model, chunk.path("model"));
        systemFingerprint = firstText(systemFingerprint, chunk.path("system_fingerprint"));
        if (created == null && chunk.path("created").isIntegralNumber()) {
            created = chunk.get("created");
        }
        JsonNode chunkUsage = chunk.path("usage");
        if (chunkUsage.isObject()) {
            usage = chunkUsage; // vLLM's continuous usage stats send it on every chunk: the last is the total
        }
        JsonNode chunkChoices = chunk.path("choices");
        if (chunkChoices.isMissingNode() || chunkChoices.isNull()) {
            return;
        }
        if (!chunkChoices.isArray()) {
            fail("choices is not an array");
            return;
        }
        for (JsonNode choice : chunkChoices) {
            String problem = onChoice(choice);
            if (problem != null) {
                fail(problem);
                return;
            }
        }
    }

    private String onChoice(JsonNode choice) {
        JsonNode index = choice.path("index");
        if (!index.isIntegralNumber() || !index.canConvertToInt() || index.intValue() < 0) {
            return "choice without a valid index";
        }
        if (choice.hasNonNull("logprobs")) {
            // A replay splits text where it likes, so per-token logprobs could not be given back.
            return "logprobs are not stored";
        }
        AssembledChoice assembled = choices.computeIfAbsent(index.intValue(), AssembledChoice::new);
        // Both formats always carry these (an empty delta or text at worst): a chunk without is not one we understand.
        if (object.equals(CHAT_CHUNK)) {
            JsonNode delta = choice.path("delta");
            if (!delta.isObject()) {
                return "chat choice without a delta object";
            }
            String problem = assembled.applyDelta(delta);
            if (problem != null) {
                return problem;
            }
        } else {
            JsonNode text = choice.path("text");
            if (!text.isTextual()) {
                return "text choice without a text string";
            }
            assembled.appendText(text.textValue());
        }
        assembled.finish(choice.get("finish_reason"), choice.get("stop_reason"));
        return null;
    }

    private void onDone() {
        done = true;
        if (object == null || choices.isEmpty()) {
            fail("no choices before [DONE]");
        } else if (id == null || model == null || created == null) {
            fail("id, model or created missing");
        } else if (!choices.values().stream().allMatch(AssembledChoice::finished)) {
            fail("a choice has no finish_reason");
        }
    }

    private void fail(String reason) {
        failure = reason;
        // Let go of everything accumulated: an unstorable answer should not hold memory until the stream ends.
        choices.clear();
        usage = null;
        reader.release();
    }

    private static JsonNode firstText(JsonNode current, JsonNode candidate) {
        return current == null && candidate.isTextual() ? candidate : current;
    }
}
