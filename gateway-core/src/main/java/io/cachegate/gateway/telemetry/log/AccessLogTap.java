package io.cachegate.gateway.telemetry.log;

import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.ExchangeRecord;
import io.cachegate.gateway.exchange.ResponseTap;
import io.cachegate.gateway.exchange.UsageTail;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;
import java.util.Arrays;

/**
 * What the access log needs of an answer, read as it passes: the {@code usage} of a backend's answer (the prompt and
 * completion tokens of a miss; a hit's record holds its entry's) into the exchange's record, and, with
 * {@code log.include_text}, the first {@link #MAX_TEXT_BYTES} of the backend's answer or a hit's for the line's
 * {@code answer} (not a coalesced follower's, nor the gateway's own). Only a 2xx answer that completes counts.
 */
final class AccessLogTap implements ResponseTap {

    /** The most of an answer kept for the log's text; a longer one is cut (its text up to here is logged). */
    static final int MAX_TEXT_BYTES = 64 * 1024;

    private final ExchangeRecord record;
    private final UsageTail usage;
    private final Answer answer;
    private byte[] text;
    private int textLength;
    private int status;

    /**
     * @param usage the answer's tail, fed before this tap sees each piece
     * @param answer the answer tapped, which says where it comes from
     */
    AccessLogTap(ExchangeRecord record, UsageTail usage, Answer answer, boolean keepText) {
        this.record = record;
        this.usage = usage;
        this.answer = answer;
        this.text = keepText ? new byte[1024] : null;
    }

    @Override
    public void onHead(HttpResponse head) {
        status = head.status().code();
    }

    @Override
    public void onContent(ByteBuf content) {
        if (text != null && textLength < MAX_TEXT_BYTES) {
            int n = Math.min(content.readableBytes(), MAX_TEXT_BYTES - textLength);
            if (textLength + n > text.length) {
                text = Arrays.copyOf(text, Math.min(MAX_TEXT_BYTES, Math.max(text.length * 2, textLength + n)));
            }
            content.getBytes(content.readerIndex(), text, textLength, n);
            textLength += n;
        }
    }

    @Override
    public void onComplete() {
        if (status < 200 || status >= 300) {
            return;
        }
        Answer.Source source = answer.source();
        if (source == Answer.Source.BACKEND) {
            usage.usage().ifPresent(u -> record.usage((int) Math.min(Integer.MAX_VALUE, u.prompt()),
                    (int) Math.min(Integer.MAX_VALUE, u.completion())));
        }
        if (text != null && (source == Answer.Source.BACKEND || source == Answer.Source.CACHE)) {
            record.answerBody(Arrays.copyOf(text, textLength));
        }
    }

    @Override
    public void onAbort() {
        text = null;
    }
}
