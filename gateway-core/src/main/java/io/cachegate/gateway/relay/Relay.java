package io.cachegate.gateway.relay;

import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.dispatch.ReplicaChoiceStage;
import io.cachegate.gateway.dispatch.ServePlan;
import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.ClientResponses;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ResponseTap;
import io.cachegate.gateway.exchange.Speculation;
import io.cachegate.gateway.transport.LoopLag;
import io.cachegate.gateway.upstream.UpstreamCall;
import io.cachegate.gateway.upstream.UpstreamFailure;
import io.cachegate.gateway.upstream.UpstreamSettings;
import io.cachegate.routing.FailureKind;
import io.cachegate.routing.RetryPolicy;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays one request to the replica the exchange holds and streams the answer back through the exchange's
 * {@link Answer}: the streaming hot path, one class on purpose. The upstream connection is read only when the
 * previous write to the client has completed (Netty's proxy pattern), so a slow client holds one batch in memory;
 * a client that leaves cancels the call. A failed connect, a first-byte timeout or a 5xx/429 head is retried on
 * another replica as the backend's {@link RetryPolicy} allows, never after the first byte; a stale pooled
 * connection on the same replica. A 400 saying the prompt is too long for the model, or a backend none of whose
 * replicas took the connection, moves the request to the next hop of the route's fallback chain. While a
 * speculative cache lookup still decides, the call speaks through a {@link SpeculativeHold}: nothing reaches the
 * client before it decides, and a hit cancels the call.
 */
final class Relay {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);

    private final Exchange x;
    private final ChannelHandlerContext ctx;
    private final RelayStage stage;
    private final ResponseTap tap;
    private final Answer answer;
    private final SpeculativeHold hold;
    private ServePlan plan;
    private UpstreamSettings settings;
    private final ReplicaAttempts replicas = new ReplicaAttempts();
    private UpstreamCall call;
    private boolean responseStarted;
    private int status;
    private ChannelFuture lastWrite;
    private boolean done;
    private boolean clientGone;
    /** A 400 held back until its body shows whether it is a context-length error the next hop may fix. */
    private HeldError heldError;
    /**
     * A head with a {@code Content-Length} body, held until its body's end arrives in the same read: the
     * answer then leaves as one buffer, head and body together, as a hit does (one write, one encoding, the taps
     * passed once); else it is written when the read completes, so a large body still streams.
     */
    private HttpResponse heldHead;

    Relay(Exchange x, ServePlan plan, RelayStage stage) {
        this.x = x;
        this.ctx = x.ctx();
        this.stage = stage;
        this.tap = x.taps();
        this.answer = x.answer();
        this.hold = new SpeculativeHold(x, this);
        serve(plan);
    }

    private void serve(ServePlan next) {
        this.plan = next;
        this.settings = next.serving().upstream();
        replicas.restart(next.routing());
        x.set(ServePlan.KEY, next);
    }

    /** Sends the request to the replica the exchange holds. */
    void start() {
        x.onCancel(this::cancel);
        if (Speculation.pending(x)) {
            Speculation.onHit(x, this::yieldToCache);
        }
        attempt();
    }

    /** The cache answers instead (a speculative lookup hit): the call stops; nothing of it reached the client. */
    private void yieldToCache() {
        if (!done) {
            done = true;
            if (call != null) {
                call.cancel();
            }
            hold.drop();
        }
    }

    /**
     * The client went away: stop the call so the backend stops generating, unless coalesced requests still need
     * the answer (then read to its end for them, written nowhere). */
    public void cancel() {
        if (done || clientGone) {
            return;
        }
        clientGone = tap.needsRest();
        if (clientGone) {
            answer.discard(); // read to the end for the coalesced requests, written nowhere
            return;
        }
        if (call != null) {
            call.cancel();
        }
        hold.drop();
        answer.abort();
        end(responseStarted ? status : 499);
    }

    private void attempt() {
        URI replica = replicas.next(x);
        x.record().upstreamStarted(settings.backend(), x.ticker().nanos());
        FullHttpRequest request = ForwardedHeaders.upstreamRequest(x, replica, plan.servedModel(),
                stage.replaceAuthorization(), plan.serving().backend().apiKey());
        call = stage.client().call(ctx.channel().eventLoop(), replica, settings, request, hold);
    }

    /** Retries on another replica when the policy allows it and one has room (see {@link ReplicaAttempts}). */
    private boolean retryElsewhere(FailureKind kind) {
        Optional<Duration> backoff = responseStarted ? Optional.empty() : replicas.retryElsewhere(plan, kind, x);
        if (backoff.isEmpty()) {
            return false;
        }
        call = null;
        stage.metrics().upstreamRetried(settings.backend());
        ctx.executor().schedule(() -> {
            if (!done) {
                attempt();
            }
        }, backoff.get().toNanos(), TimeUnit.NANOSECONDS);
        return true;
    }

    /** The answer's head, which arrived at {@code now}; false when this call's answer is not used. */
    boolean onHead(UpstreamCall upstream, HttpResponse head, long now) {
        if (done) {
            return false;
        }
        if (x.lease() != null) {
            x.lease().answerBegun(); // the replica has prefilled the prompt (vLLM sends the head with the first token)
        }
        int code = head.status().code();
        Optional<FailureKind> failed = FailureKind.ofStatus(code);
        if (failed.isPresent()) {
            stage.metrics().upstreamFailed(settings.backend(), code == 429 ? "status_429" : "status_5xx");
            if (failed.get().countsAgainstReplica()) {
                plan.serving().replicas().recordFailure(replicas.current(), x.tenant());
            }
            if (retryElsewhere(failed.get())) {
                return false;
            }
            if (x.answeredByStandIn(code == 429 ? "overloaded" : "backend_error")) {
                done = true; // a stored answer past its TTL answers instead: this call's answer is not used
                return false;
            }
        } else {
            // What the backend took: the answer was read as late as this loop runs (LoopLag), which is not its queue.
            long backendNanos = Math.max(1, now - upstream.sentAtNanos() - LoopLag.here());
            plan.serving().replicas().recordSuccess(replicas.current(), backendNanos);
        }
        stage.metrics().upstreamResponded(settings.backend(), now - upstream.sentAtNanos());
        x.record().upstreamFirstByteNanos(now - x.record().upstreamStartNanos());
        HttpResponse response = ForwardedHeaders.clientHead(head, x, plan.servedModel(), now - upstream.sentAtNanos(),
                now - x.startNanos());
        if (code == 400) {
            heldError = new HeldError(response); // read it whole before deciding what the client sees
            status = code;
        } else {
            relayHead(response, code);
        }
        return true;
    }

    private void relayHead(HttpResponse response, int code) {
        responseStarted = true;
        status = code;
        if (HttpUtil.isContentLengthSet(response) && !answer.rewrites()) {
            heldHead = response; // a rewrite (another API's dialect) takes a head and pieces, not a whole answer
        } else {
            lastWrite = answer.head(response, Answer.Source.BACKEND);
        }
    }

    /** The held head leaves on its own: its body did not end in the read it came in (or the client went). */
    private void writeHeldHead() {
        if (heldHead != null) {
            lastWrite = answer.head(heldHead, Answer.Source.BACKEND);
            heldHead = null;
        }
    }

    private void writeContent(HttpContent content) {
        writeHeldHead();
        lastWrite = answer.content(content);
    }

    /** The answer's end; with the head still held, head and body as one whole answer (the last piece's buffer). */
    private void writeEnd(LastHttpContent last) {
        if (heldHead == null) {
            answer.end(last);
            return;
        }
        HttpResponse head = heldHead;
        heldHead = null;
        answer.whole(new DefaultFullHttpResponse(head.protocolVersion(), head.status(), last.content(),
                head.headers(), last.trailingHeaders()), Answer.Source.BACKEND);
    }

    /**
     * Collects the held 400's body; at its end either hands the request to the next hop (a context-length
     * error) or relays the error as it came. True when the content was consumed here.
     */
    private boolean holdError(HttpContent content) {
        if (heldError == null) {
            return false;
        }
        HeldError held = heldError;
        if (!held.add(content.content())) {
            // Too long for an error we could act on: relay what was held, and the rest as it comes.
            heldError = null;
            relayHead(held.head(), 400);
            writeContent(new DefaultHttpContent(Unpooled.wrappedBuffer(held.body())));
            return false;
        }
        content.release();
        if (!(content instanceof LastHttpContent)) {
            return true;
        }
        heldError = null;
        if (held.isContextLengthError() && !clientGone && handOver(stage.planner().afterContextLengthError(x, plan))) {
            return true;
        }
        relayHead(held.head(), 400);
        done = true;
        writeEnd(new DefaultLastHttpContent(Unpooled.wrappedBuffer(held.body()))); // which finishes the exchange
        return true;
    }

    /**
     * The request moves to the next hop of the route's fallback chain and is sent again, without queueing (it
     * waited its turn once). False when the chain is spent: the caller then answers with what failed.
     */
    private boolean handOver(Optional<ServePlan> next) {
        if (next.isEmpty()) {
            return false;
        }
        x.releaseLease();
        serve(next.get());
        if (ReplicaChoiceStage.acquire(x, plan)) {
            attempt();
        } else {
            done = true;
        }
        return true;
    }

    void onContent(UpstreamCall upstream, HttpContent content) {
        if (done) {
            content.release();
            return;
        }
        if (holdError(content)) {
            return;
        }
        if (content instanceof LastHttpContent last) {
            x.record().upstreamNanos(x.ticker().nanos() - x.record().upstreamStartNanos());
            done = true;
            // The taps hear the end, whatever becomes of this client's copy, and the exchange finishes.
            writeEnd(last);
        } else {
            writeContent(content);
        }
    }

    void onReadComplete(UpstreamCall upstream) {
        if (done) {
            return;
        }
        if (heldError != null || clientGone) {
            upstream.requestMore(); // no write to wait for: a held error is not written yet, a gone client not at all
            return;
        }
        writeHeldHead();
        answer.flush();
        lastWrite.addListener((ChannelFutureListener) f -> {
            if (f.isSuccess()) {
                upstream.requestMore();
            } else {
                cancel(); // the client connection broke while we were writing
                f.channel().close();
                if (clientGone && !done) {
                    upstream.requestMore(); // coalesced requests still need the rest: keep reading for them
                }
            }
        });
    }

    void onFailure(UpstreamCall upstream, UpstreamFailure failure, Throwable cause) {
        if (done) {
            return;
        }
        stage.metrics().upstreamFailed(settings.backend(), failure.metricName());
        if (!responseStarted) {
            if (failure == UpstreamFailure.CLOSED_BEFORE_RESPONSE && upstream.reusedConnection()
                    && replicas.count() < plan.serving().retry().maxAttempts()) {
                attempt(); // the same replica: a pooled connection the backend had closed, a fresh one will do
                return;
            }
            // Pass-through requests count as streamed: their head is not known to wait for a whole generation.
            if (failure.countsAgainstReplica(x.parsed() == null || x.parsed().stream())) {
                plan.serving().replicas().recordFailure(replicas.current(), x.tenant());
            }
            // Only a failed connect is retried: after a timeout the model may be generating already.
            if (failure == UpstreamFailure.CONNECT_FAILED && (retryElsewhere(FailureKind.CONNECT_FAILED)
                    || !clientGone && handOver(stage.planner().afterUnreachable(x, plan)))) {
                return; // another replica, else the next hop: nothing reached the model yet
            }
        } else {
            plan.serving().replicas().recordFailure(replicas.current(), x.tenant());
        }
        if (!responseStarted && x.answeredByStandIn(failure.errorKind().outage())) {
            done = true;
            return;
        }
        answer.abort();
        if (responseStarted) {
            // Too late for an error status: cut the connection so the client sees a truncated answer, not a complete one.
            log.debug("request {}: upstream failed mid-answer ({})", x.requestId(), failure);
            if (!clientGone) {
                ctx.close();
            }
            end(status);
            return;
        }
        ErrorKind kind = failure.errorKind();
        log.debug("request {}: upstream {} failed: {}", x.requestId(), replicas.current(), failure);
        end(kind.status());
        answer.whole(ClientResponses.error(kind, failure.message(settings.backend()), null, x.requestId(),
                x.keepAlive()), Answer.Source.GATEWAY);
    }

    private void end(int finalStatus) {
        done = true;
        x.finish(finalStatus); // once: a finished exchange ignores this
    }
}
