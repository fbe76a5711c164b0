package io.cachegate.gateway.exchange;

import io.cachegate.cache.exact.Dialect;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The last 16 KiB of a backend's answer as it passes, and the {@code usage} object found in them: {@code usage} comes
 * last, in a JSON answer as in an SSE stream, so the tail is enough whatever the answer's length. An answer the
 * backend did not generate for this request (a hit, a follower's) is not read: its usage is not this request's. One per exchange
 * ({@link #of}), fed by one tap however many read it (tenant token limits, the access log). Confined to the
 * exchange's event loop.
 */
public final class UsageTail {

    private static final Exchange.Key<UsageTail> KEY = Exchange.Key.named("usage.tail");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int TAIL_BYTES = 16 * 1024;
    private static final byte[] USAGE = "\"usage\"".getBytes(StandardCharsets.US_ASCII);

    /**
     * An answer's usage; a count the answer does not give is 0, and {@code total} is their sum unless given; {@code
     * cached} the prompt tokens the backend's prefix cache held ({@code prompt_tokens_details.cached_tokens}, or
     * {@code input_tokens_details} in the Responses API), -1 when the answer does not say.
     */
    public record Usage(long prompt, long completion, long total, long cached) {

        public Usage(long prompt, long completion, long total) {
            this(prompt, completion, total, -1);
        }
    }

    /** The API of the answer, which names its usage counts; null for a request of none (read either name). */
    private final Dialect dialect;
    private byte[] tail; // allocated by the first content: an exchange answered without a body needs none
    private long written;
    /** The usage found when it was last asked, until more content arrives; null: not looked for yet. */
    private Optional<Usage> found;

    /**
     * The exchange's tail: made, and a tap feeding it put on the answer, by the first caller. Ask for it before
     * adding a tap that reads it, so the feeding tap sees each piece first.
     */
    public static UsageTail of(Exchange x) {
        UsageTail tail = x.get(KEY);
        if (tail == null) {
            tail = new UsageTail(x.endpoint() == null ? null : x.endpoint().dialect());
            x.set(KEY, tail);
            x.addTap(tail.feeder(x.answer()));
        }
        return tail;
    }

    /** The exchange's tail if something asked for it before the answer came ({@link #of}); null otherwise. */
    public static UsageTail existing(Exchange x) {
        return x.get(KEY);
    }

    /** A tail for answers in {@code dialect} (null: either name); {@link #of} makes the exchange's. */
    public UsageTail(Dialect dialect) {
        this.dialect = dialect;
    }

    private ResponseTap feeder(Answer answer) {
        return new ResponseTap() {
            @Override
            public void onHead(HttpResponse head) {
            }

            @Override
            public void onContent(ByteBuf content) {
                if (answer.source() == Answer.Source.BACKEND) {
                    feed(content);
                }
            }

            @Override
            public void onComplete() {
            }

            @Override
            public void onAbort() {
            }
        };
    }

    /** Keeps the end of {@code content}, which is only borrowed. */
    public void feed(ByteBuf content) {
        int length = content.readableBytes();
        found = null;
        if (tail == null) {
            tail = new byte[TAIL_BYTES];
        }
        int start = content.readerIndex();
        for (int i = Math.max(0, length - TAIL_BYTES); i < length; i++) {
            tail[(int) ((written + i) % TAIL_BYTES)] = content.getByte(start + i);
        }
        written += length;
    }

    /** The last {@code usage} object of the answer so far; empty when there is none (or it is null). */
    public Optional<Usage> usage() {
        if (found == null) {
            found = find();
        }
        return found;
    }

    private Optional<Usage> find() {
        if (tail == null) {
            return Optional.empty();
        }
        int size = (int) Math.min(written, TAIL_BYTES);
        byte[] text = new byte[size];
        for (int i = 0; i < size; i++) {
            text[i] = tail[(int) ((written - size + i) % TAIL_BYTES)];
        }
        for (int at = lastIndexOf(text, size); at >= 0; at = lastIndexOf(text, at)) {
            try {
                JsonNode usage = parseAfterColon(text, at + USAGE.length, size);
                if (usage != null && usage.isObject()) {
                    long prompt = dialect != null ? dialect.promptTokens(usage)
                            : Math.max(Dialect.CHAT.promptTokens(usage), Dialect.RESPONSES.promptTokens(usage));
                    long completion = dialect != null ? dialect.completionTokens(usage)
                            : Math.max(Dialect.CHAT.completionTokens(usage), Dialect.RESPONSES.completionTokens(usage));
                    JsonNode total = usage.get("total_tokens");
                    JsonNode cached = usage.has("prompt_tokens_details")
                            ? usage.path("prompt_tokens_details").path("cached_tokens")
                            : usage.path("input_tokens_details").path("cached_tokens");
                    return Optional.of(new Usage(prompt, completion,
                            total != null && total.canConvertToLong() ? total.asLong() : prompt + completion,
                            cached.canConvertToLong() ? cached.asLong() : -1));
                }
            } catch (IOException e) {
                // not a usage object after all: look further back
            }
        }
        return Optional.empty();
    }

    private static JsonNode parseAfterColon(byte[] text, int from, int end) throws IOException {
        int i = from;
        while (i < end && (text[i] == ' ' || text[i] == ':')) {
            i++;
        }
        try (JsonParser parser = JSON.createParser(text, i, end - i)) {
            return parser.nextToken() == null ? null : JSON.readTree(parser);
        }
    }

    private static int lastIndexOf(byte[] text, int before) {
        for (int i = before - USAGE.length; i >= 0; i--) {
            boolean match = true;
            for (int j = 0; j < USAGE.length && match; j++) {
                match = text[i + j] == USAGE[j];
            }
            if (match) {
                return i;
            }
        }
        return -1;
    }
}
