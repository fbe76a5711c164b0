package io.cachegate.cache.exact;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads a streamed Responses API answer ({@code response.created} ... {@code response.completed}) and keeps the
 * response object its terminal event carries ({@code response.completed}, or {@code response.incomplete}, which
 * the store policy may accept as a {@code length} cut-off). The text deltas must add up to that object's text:
 * any doubt makes the answer unstorable rather than wrong. Not thread-safe: one per streamed answer.
 */
final class ResponsesStreamAssembler implements AnswerAssembler {

    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final SseEventReader reader;
    /** The text deltas so far, bounded by maxBytes like everything read. */
    private final StringBuilder deltas = new StringBuilder();
    private byte[] document;
    private String failure;

    ResponsesStreamAssembler(int maxBytes) {
        this.reader = new SseEventReader(this::onEvent, maxBytes);
    }

    @Override
    public void feed(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        if (failure != null || document != null) {
            return; // after the terminal event: nothing more belongs to the answer
        }
        if (!reader.feed(bytes, offset, length) && document == null && failure == null) {
            fail("larger than " + reader.maxBytes() + " bytes");
        }
    }

    @Override
    public Optional<byte[]> completeDocument() {
        return failure == null ? Optional.ofNullable(document) : Optional.empty();
    }

    private void onEvent(String name, byte[] data, int length) {
        if (failure != null || document != null || length == 0) {
            return;
        }
        JsonNode event;
        try {
            event = JSON.readTree(data, 0, length);
        } catch (IOException e) {
            fail("malformed JSON in an event");
            return;
        }
        String type = event == null ? "" : event.path("type").asText();
        if (name != null && !name.equals("message") && !name.equals(type)) {
            fail("event name and type differ");
            return;
        }
        switch (type) {
            case "response.output_text.delta" -> {
                if (!event.path("delta").isTextual()) {
                    fail("a text delta without text");
                } else if (event.path("logprobs").isArray() && !event.path("logprobs").isEmpty()) {
                    fail("logprobs are not stored"); // a replay cuts text elsewhere than the tokens they describe
                } else {
                    deltas.append(event.path("delta").textValue());
                }
            }
            case "response.completed", "response.incomplete" -> finish(event.path("response"));
            case "error", "response.failed" -> fail("error event");
            case "" -> fail("event without a type");
            default -> {
                // created, in_progress, item and part boundaries, done events: the terminal event repeats them
            }
        }
    }

    private void finish(JsonNode response) {
        if (!response.isObject() || !"response".equals(response.path("object").asText())
                || !response.path("id").isTextual()) {
            fail("terminal event without a response object");
        } else if (!ResponsesText.of(response).contentEquals(deltas)) {
            fail("deltas differ from the final text");
        } else {
            try {
                document = JSON.writeValueAsBytes(response);
            } catch (IOException e) {
                fail("response not serialisable");
            }
        }
        deltas.setLength(0);
        reader.release();
    }

    private void fail(String reason) {
        failure = reason;
        deltas.setLength(0);
        deltas.trimToSize();
        reader.release();
    }
}
