package io.cachegate.gateway.quota;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.gateway.exchange.ResponseTap;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/**
 * Settles a request's token estimate once its answer is known: the backend's {@code usage} replaces it (the
 * difference taken, or the excess given back); an answer the backend never generated — a cache hit, a coalesced
 * follower's, a refusal, an error status — gives it all back; an answer without usage (a stream without
 * {@code include_usage}) keeps it. Only the answer's tail is kept: {@code usage} comes last, in JSON as in SSE.
 */
final class UsageTap implements ResponseTap {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int TAIL_BYTES = 16 * 1024;
    private static final byte[] USAGE = "\"usage\"".getBytes(StandardCharsets.US_ASCII);

    private final LimitBucket tokens;
    private final long estimate;
    private final byte[] tail = new byte[TAIL_BYTES];
    private long written;
    private int status;
    private boolean settled;

    UsageTap(LimitBucket tokens, long estimate) {
        this.tokens = tokens;
        this.estimate = estimate;
    }

    @Override
    public void onHead(HttpResponse head) {
        status = head.status().code();
    }

    @Override
    public void onContent(ByteBuf content) {
        int length = content.readableBytes();
        int start = content.readerIndex();
        for (int i = Math.max(0, length - TAIL_BYTES); i < length; i++) {
            tail[(int) ((written + i) % TAIL_BYTES)] = content.getByte(start + i);
        }
        written += length;
    }

    @Override
    public void onComplete() {
        OptionalLong used = status >= 200 && status < 300 ? usage() : OptionalLong.empty();
        if (used.isPresent()) {
            settle(used.getAsLong() - estimate);
        }
    }

    @Override
    public void onAbort() {
    }

    /** When the exchange finishes: an answer that never came from the backend gives its estimate back. */
    void finished() {
        if (status == 0 || status >= 400) {
            settle(-estimate);
        }
    }

    private void settle(long difference) {
        if (!settled) {
            settled = true;
            tokens.adjust(difference);
        }
    }

    /** The last {@code usage} object of the answer, as total tokens; empty when there is none (or it is null). */
    OptionalLong usage() {
        int size = (int) Math.min(written, TAIL_BYTES);
        byte[] text = new byte[size];
        for (int i = 0; i < size; i++) {
            text[i] = tail[(int) ((written - size + i) % TAIL_BYTES)];
        }
        for (int at = lastIndexOf(text, size); at >= 0; at = lastIndexOf(text, at)) {
            try {
                JsonNode usage = parseAfterColon(text, at + USAGE.length, size);
                if (usage != null && usage.isObject()) {
                    JsonNode total = usage.get("total_tokens");
                    if (total != null && total.canConvertToLong()) {
                        return OptionalLong.of(total.asLong());
                    }
                    return OptionalLong.of(usage.path("prompt_tokens").asLong(0)
                            + usage.path("completion_tokens").asLong(0));
                }
            } catch (IOException e) {
                // not a usage object after all: look further back
            }
        }
        return OptionalLong.empty();
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
