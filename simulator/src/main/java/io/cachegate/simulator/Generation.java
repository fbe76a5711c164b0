package io.cachegate.simulator;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One chat, text completion or response from admission to its last byte: waits for a slot of the
 * {@link ConcurrencyGate}, looks its prompt up in the {@link PrefixCache}, then emits tokens on the
 * schedule of the {@link LatencyModel} (a prefix another request is computing is waited for, as vLLM's
 * one-step-at-a-time scheduler waits), streamed as SSE or answered whole when the last token is due. Its
 * prompt's blocks enter the prefix cache (and are published) when its prefill ends, at its first token, as
 * vLLM stores them after the step that computes them; it holds them until it ends. Confined to the
 * channel's event loop, except {@link #granted()}, which hops onto it. Every token that is already
 * due is written in one buffer, so at zero latency a whole answer is one write: the benchmark's
 * fast path.
 */
final class Generation implements ConcurrencyGate.Waiter {

    private enum State { NEW, QUEUED, RUNNING, FINISHED, CANCELLED }

    private final ChannelHandlerContext ctx;
    private final Simulation sim;
    private final CompletionRequest request;
    private final boolean keepAlive;
    private final Runnable onDone;
    private final AnswerFormat json;
    private final String finishReason;

    private State state = State.NEW;
    private String[][] tokens;
    private int emitted;
    private long firstTokenAt;
    /** When token {@code emitted} is due, in nanoseconds after {@link #firstTokenAt}. */
    private double nextOffsetNanos;
    private ScheduledFuture<?> timer;
    /** Prompt tokens the prefix cache held at the start, or {@link AnswerFormat#NO_PREFIX_CACHE}. */
    private int cachedTokens = AnswerFormat.NO_PREFIX_CACHE;
    /** Its blocks in the prefix cache while it runs; null without a cache. */
    private PrefixCache.Hold prefix;

    Generation(ChannelHandlerContext ctx, Simulation sim, CompletionRequest request, boolean keepAlive,
               Runnable onDone) {
        this.ctx = ctx;
        this.sim = sim;
        this.request = request;
        this.keepAlive = keepAlive;
        this.onDone = onDone;
        // The card as the generation starts: an answer begun before a model swap is the old model's.
        this.json = AnswerFormat.of(request, System.currentTimeMillis() / 1000, sim.cards.fingerprint(request.model()));
        // Without max_tokens the "model" stops by itself after defaultMaxTokens words.
        this.finishReason = request.finishReason();
    }

    /** Asks the gate for a slot: starts now, waits in the queue, or answers 503. */
    void submit() {
        switch (sim.gate.tryAcquire(this)) {
            case GRANTED -> start();
            case QUEUED -> state = State.QUEUED;
            case REJECTED -> {
                state = State.FINISHED;
                sim.errors.increment();
                HttpResponses.sendError(ctx, ApiError.OVERLOADED,
                        "The server is overloaded: " + sim.options.maxQueue() + " requests are already waiting.",
                        null, keepAlive);
                onDone.run();
            }
            default -> throw new IllegalStateException();
        }
    }

    @Override
    public void granted() {
        ctx.executor().execute(() -> {
            if (state == State.QUEUED) {
                start();
            }
            // CANCELLED: cancel() saw the slot already handed over and released it.
        });
    }

    /** The client went away: stop, free the slot, count it. Nothing to do once finished. */
    void cancel() {
        switch (state) {
            case QUEUED -> {
                if (!sim.gate.withdraw(this)) {
                    sim.gate.release(); // granted while we were leaving: give the slot back
                }
            }
            case RUNNING -> {
                if (timer != null) {
                    timer.cancel(false);
                }
                if (System.nanoTime() - firstTokenAt >= 0) {
                    sim.prefilled(prefix); // the prefill was done (if its timer has not run yet)
                }
                sim.ended(prefix);
                sim.gate.release();
            }
            default -> {
                return;
            }
        }
        state = State.CANCELLED;
        sim.cancelled.increment();
    }

    private void start() {
        state = State.RUNNING;
        tokens = new String[request.n()][];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = request.answer() != null ? request.answer()
                    : CompletionGenerator.tokens(request.hash().seed(), i, request.maxTokens());
        }
        long now = System.nanoTime();
        prefix = sim.started(request, now);
        cachedTokens = sim.cachedTokens(request, prefix);
        firstTokenAt = prefix != null ? prefix.firstTokenAt()
                : sim.firstTokenAt(request, cachedTokens, now);
        runAt(firstTokenAt, this::prefillDone);
    }

    /** The first token is due: the prompt's blocks are computed and stored; then the answer goes on. */
    private void prefillDone() {
        if (state != State.RUNNING) {
            return;
        }
        sim.prefilled(prefix);
        if (request.stream()) {
            streamStep(); // headers go out with the first token, as vLLM's do
        } else if (sim.latency.sharesThroughput()) {
            decodeStep(); // the pace depends on the load: follow it token by token
        } else {
            runAt(firstTokenAt + sim.latency.tokenOffsetNanos(request.maxTokens() - 1), this::answerWhole);
        }
    }

    /** Token {@code emitted} is out: count it and work out when the next one is due. */
    private void advance() {
        emitted++;
        if (sim.latency.sharesThroughput()) {
            nextOffsetNanos += sim.latency.tokenIntervalNanos(sim.gate.active());
        } else {
            nextOffsetNanos = sim.latency.tokenOffsetNanos(emitted); // absolute: no accumulated rounding
        }
    }

    private long nextDue() {
        return firstTokenAt + (long) nextOffsetNanos;
    }

    /** A non-streamed answer under a throughput limit: advances through the due tokens, answers after the last. */
    private void decodeStep() {
        if (state != State.RUNNING) {
            return;
        }
        long now = System.nanoTime();
        while (emitted < request.maxTokens() && nextDue() - now <= 0) {
            advance();
        }
        if (emitted < request.maxTokens()) {
            runAt(nextDue(), this::decodeStep);
        } else {
            answerWhole();
        }
    }

    private void runAt(long deadline, Runnable task) {
        long delay = deadline - System.nanoTime();
        if (delay <= 0) {
            task.run();
        } else {
            timer = ctx.executor().schedule(task, delay, TimeUnit.NANOSECONDS);
        }
    }

    private void answerWhole() {
        if (state != State.RUNNING) {
            return;
        }
        String body = json.fullResponse(tokens, finishReason, request.promptTokens(), cachedTokens);
        sim.completed.increment(); // before the last bytes leave: whoever has the answer sees it counted
        HttpResponses.sendJson(ctx, HttpResponseStatus.OK, body, keepAlive);
        finish();
    }

    /** Writes every token due by now (at least one), then schedules itself for the next. */
    private void streamStep() {
        if (state != State.RUNNING) {
            return;
        }
        int total = request.maxTokens();
        StringBuilder out = new StringBuilder(256);
        if (emitted == 0) {
            ctx.write(streamHead());
            json.opening(out, tokens.length);
        }
        long now = System.nanoTime();
        do {
            String reason = emitted == total - 1 ? finishReason : null;
            for (int c = 0; c < tokens.length; c++) {
                json.token(out, c, tokens[c][emitted], reason);
            }
            advance();
        } while (emitted < total && nextDue() - now <= 0);

        if (emitted < total) {
            ctx.writeAndFlush(new DefaultHttpContent(ByteBufUtil.writeUtf8(ctx.alloc(), out)));
            runAt(nextDue(), this::streamStep);
            return;
        }
        json.closing(out, request.promptTokens(), cachedTokens, total * tokens.length);
        ByteBuf last = ByteBufUtil.writeUtf8(ctx.alloc(), out);
        sim.completed.increment(); // before the last bytes leave: whoever has the answer sees it counted
        ChannelFuture written = ctx.writeAndFlush(new DefaultLastHttpContent(last));
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
        finish();
    }

    private HttpResponse streamHead() {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpResponses.EVENT_STREAM)
                .set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        if (!keepAlive) {
            head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return head;
    }

    private void finish() {
        state = State.FINISHED;
        sim.ended(prefix);
        sim.gate.release();
        onDone.run();
    }
}
