package io.cachegate.gateway.exchange;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * The one way an exchange's answer leaves for the client, whoever writes it (the relay, a cache hit, a follower of a
 * coalesced call, an error): its head, its pieces and its end, or a whole answer, pass an ordered list of
 * {@link AnswerDecorator}s before the connection. In order: the taps ({@link ResponseTap}: they see the answer as
 * its writer made it), the exchange's completion ({@link Exchange#finish}, as the last piece leaves the taps: whoever
 * has the whole answer also sees it in the metrics and the log), an armed {@link BodyRewrite}, and the headers
 * stages set ({@link Exchange#responseHeader}). Writes return the connection's future: a writer that streams reads
 * its next piece only once the previous one is written, so a slow client holds one piece in memory. Confined to the
 * exchange's event loop.
 */
public final class Answer {

    /** Where an answer comes from: taps that account for generation (token limits, usage in the log) ask. */
    public enum Source {
        /** Relayed from the backend, generated for this request. */
        BACKEND,
        /** A stored answer. */
        CACHE,
        /** Another request's answer, shared while it was generated (a coalesced follower). */
        COALESCED,
        /** Made by the gateway itself: an error, a document. */
        GATEWAY
    }

    private final Exchange x;
    private final ChannelHandlerContext ctx;
    private final ResponseTaps taps = new ResponseTaps();
    private final AnswerHeaders headers = new AnswerHeaders();
    private final List<AnswerDecorator> decorators = new ArrayList<>(4);
    private AnswerDecorator.Next first;
    private BodyRewrite rewrite;
    private Source source;
    private int status;
    private boolean closeAfter;
    private boolean discarding;
    private boolean detached;
    /** A decorator holds a part that must leave before the connection's next exchange starts. */
    private boolean held;
    private Runnable afterSent;

    Answer(Exchange x, ChannelHandlerContext ctx) {
        this.x = x;
        this.ctx = ctx;
        decorators.add(taps);
        decorators.add(this::finishing);
        decorators.add(headers);
        link();
    }

    /** Builds the chain of steps once per change of the list, not per write. */
    private void link() {
        AnswerDecorator.Next next = this::toClient;
        for (int i = decorators.size() - 1; i >= 0; i--) {
            AnswerDecorator d = decorators.get(i);
            AnswerDecorator.Next after = next;
            next = (part, promise) -> d.write(part, promise, after);
        }
        first = next;
    }

    /** The answer's head: status and headers; the body follows with {@link #content} and {@link #end}. */
    public ChannelFuture head(HttpResponse head, Source from) {
        started(head, from);
        return write(head);
    }

    /** A piece of the body, written but not flushed. */
    public ChannelFuture content(HttpContent piece) {
        return write(piece);
    }

    /** The last piece: the exchange finishes, the answer is flushed and the connection closes unless kept alive. */
    public ChannelFuture end(LastHttpContent last) {
        return last(last);
    }

    /** A whole answer (a hit, an error, a document): as {@link #head}, then {@link #end}. */
    public ChannelFuture whole(FullHttpResponse response, Source from) {
        started(response, from);
        return last(response);
    }

    public void flush() {
        ctx.flush();
    }

    /** Where the answer comes from; null before its head. */
    public Source source() {
        return source;
    }

    /**
     * The answer will not complete (the backend failed, the client left, an error answer comes instead): the taps
     * are told and hear nothing more; a rewrite holding the head lets go.
     */
    public void abort() {
        taps.onAbort();
        if (rewrite != null) {
            rewrite.abort();
        }
    }

    /** A speculative lookup answers instead: the taps put on while it was pending are told the answer will not come. */
    public void abortTentativeTaps() {
        taps.abortTentative();
    }

    /**
     * The client is gone but requests coalesced onto this answer still need it: what is written from now on reaches
     * the taps only.
     */
    public void discard() {
        discarding = true;
    }

    /** No client ever waits for this answer ({@link Exchange#detach}): discarded, and the connection left alone. */
    void detach() {
        discarding = true;
        detached = true;
    }

    /** This answer's successful body comes from {@code rewriter} instead of its writer (see {@link BodyRewrite}). */
    public void rewrite(BodyRewrite.Rewriter rewriter) {
        rewrite = new BodyRewrite(this, rewriter);
        decorators.add(decorators.indexOf(headers), rewrite); // the held head gets the headers when it is written
        link();
    }

    /** Whether a {@link BodyRewrite} is armed: it rewrites a head and pieces, and lets a whole answer pass as it is. */
    public boolean rewrites() {
        return rewrite != null;
    }

    void header(CharSequence name, Object value) {
        headers.set(name, value);
    }

    void addTap(ResponseTap tap, boolean tentative) {
        taps.add(tap, tentative);
    }

    ResponseTap taps() {
        return taps;
    }

    /** Runs {@code next} (the connection's next exchange) once nothing of this answer is held back any more. */
    void whenSent(Runnable next) {
        if (held) {
            afterSent = next;
        } else {
            next.run();
        }
    }

    void hold() {
        held = true;
    }

    /** What was held has left: the connection's next exchange may go. */
    void sent() {
        held = false;
        Runnable next = afterSent;
        afterSent = null;
        if (next != null) {
            next.run();
        }
    }

    ChannelPromise newPromise() {
        return ctx.newPromise();
    }

    /** Runs {@code task} on the connection's loop: at once when already there. */
    void onLoop(Runnable task) {
        if (ctx.executor().inEventLoop()) {
            task.run();
        } else {
            ctx.executor().execute(task);
        }
    }

    private void started(HttpResponse head, Source from) {
        source = from;
        status = head.status().code();
        closeAfter = !x.keepAlive()
                || head.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
    }

    private ChannelFuture write(HttpObject part) {
        ChannelPromise promise = ctx.newPromise();
        first.write(part, promise);
        return promise;
    }

    private ChannelFuture last(LastHttpContent last) {
        ChannelFuture written = write(last);
        ctx.flush();
        written.addListener((ChannelFutureListener) f -> {
            if (!detached && (!f.isSuccess() || closeAfter)) { // a detached answer never touches the connection
                f.channel().close();
            }
        });
        return written;
    }

    /** The decorator after the taps: the exchange is counted finished as the last piece leaves them. */
    private void finishing(HttpObject part, ChannelPromise promise, AnswerDecorator.Next next) {
        if (part instanceof LastHttpContent) {
            x.finish(status); // once: an exchange finished before (an error answer) ignores this
        }
        next.write(part, promise);
    }

    /** The end of the list: the client's connection, unless the client is gone. */
    private void toClient(HttpObject part, ChannelPromise promise) {
        if (discarding) {
            ReferenceCountUtil.release(part);
            promise.trySuccess();
            return;
        }
        ctx.write(part, promise);
    }
}
