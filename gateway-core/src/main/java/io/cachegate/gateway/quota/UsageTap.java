package io.cachegate.gateway.quota;

import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.ResponseTap;
import io.cachegate.gateway.exchange.UsageTail;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;
import java.util.OptionalLong;

/**
 * Settles a request's token estimate once its answer is known: the backend's {@code usage} replaces it (the
 * difference taken, or the excess given back); an answer the backend never generated — a cache hit, a coalesced
 * follower's, a refusal, an error status — gives it all back; an answer without usage (a stream without
 * {@code include_usage}) keeps it. It reads the exchange's {@link UsageTail}, which a tap of its own feeds.
 */
final class UsageTap implements ResponseTap {

    private final LimitBucket tokens;
    private final long estimate;
    private final UsageTail tail;
    private final Answer answer;
    private int status;
    private boolean settled;

    /**
     * @param tail the answer's tail, fed before this tap sees each piece
     * @param answer the answer tapped, which says whether the backend generated it
     */
    UsageTap(LimitBucket tokens, long estimate, UsageTail tail, Answer answer) {
        this.tokens = tokens;
        this.estimate = estimate;
        this.tail = tail;
        this.answer = answer;
    }

    @Override
    public void onHead(HttpResponse head) {
        status = head.status().code();
    }

    @Override
    public void onContent(ByteBuf content) {
        // fed to the tail by its own tap
    }

    @Override
    public void onComplete() {
        OptionalLong used = generated() && status >= 200 && status < 300 ? usage() : OptionalLong.empty();
        if (used.isPresent()) {
            settle(used.getAsLong() - estimate);
        }
    }

    @Override
    public void onAbort() {
    }

    /** When the exchange finishes: an answer that never came from the backend gives its estimate back. */
    void finished() {
        if (!generated() || status >= 400) {
            settle(-estimate);
        }
    }

    /** Whether the backend generated the answer for this request (not a hit, a follower's or the gateway's own). */
    private boolean generated() {
        return answer.source() == Answer.Source.BACKEND;
    }

    private void settle(long difference) {
        if (!settled) {
            settled = true;
            tokens.adjust(difference);
        }
    }

    /** The answer's total tokens by its last {@code usage} object; empty when there is none (or it is null). */
    OptionalLong usage() {
        return tail.usage().map(u -> OptionalLong.of(u.total())).orElse(OptionalLong.empty());
    }
}
