package io.cachegate.gateway.exchange;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.ArrayList;
import java.util.List;

/**
 * The taps stages put on one answer (the capture that stores it, the shared answer followers read, the access log),
 * as one, and the decorator that shows them each part of the answer the client is sent, whoever wrote it. A tap told
 * the answer will not complete hears nothing more of it.
 */
final class ResponseTaps implements ResponseTap, AnswerDecorator {

    private static final class Tapped {
        private final ResponseTap tap;
        /** Put on while a speculative lookup was pending: let go if that lookup answers (see {@link Speculation}). */
        private final boolean tentative;
        private boolean aborted;

        private Tapped(ResponseTap tap, boolean tentative) {
            this.tap = tap;
            this.tentative = tentative;
        }
    }

    private final List<Tapped> taps = new ArrayList<>(4);

    void add(ResponseTap tap, boolean tentative) {
        taps.add(new Tapped(tap, tentative));
    }

    /** The lookup the tentative taps waited on answers instead: they are told the answer will not complete. */
    void abortTentative() {
        for (Tapped t : taps) {
            if (t.tentative && !t.aborted) {
                t.aborted = true;
                t.tap.onAbort();
            }
        }
    }

    @Override
    public void write(HttpObject part, ChannelPromise promise, Next next) {
        if (part instanceof HttpResponse head) {
            onHead(head);
        }
        if (part instanceof HttpContent content) {
            onContent(content.content());
            if (part instanceof LastHttpContent) {
                onComplete();
            }
        }
        next.write(part, promise);
    }

    @Override
    public void onHead(HttpResponse head) {
        for (Tapped t : taps) {
            if (!t.aborted) {
                t.tap.onHead(head);
            }
        }
    }

    @Override
    public void onContent(ByteBuf content) {
        for (Tapped t : taps) {
            if (!t.aborted) {
                t.tap.onContent(content);
            }
        }
    }

    @Override
    public void onComplete() {
        for (Tapped t : taps) {
            if (!t.aborted) {
                t.tap.onComplete();
            }
        }
    }

    @Override
    public void onAbort() {
        for (Tapped t : taps) {
            if (!t.aborted) {
                t.aborted = true;
                t.tap.onAbort();
            }
        }
    }

    @Override
    public void onFallback(String backend, String model) {
        for (Tapped t : taps) {
            if (!t.aborted) {
                t.tap.onFallback(backend, model);
            }
        }
    }

    @Override
    public boolean needsRest() {
        for (Tapped t : taps) {
            if (!t.aborted && t.tap.needsRest()) {
                return true;
            }
        }
        return false;
    }
}
