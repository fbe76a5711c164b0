package io.cachegate.gateway.relay;

import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Speculation;
import io.cachegate.gateway.upstream.UpstreamCall;
import io.cachegate.gateway.upstream.UpstreamFailure;
import io.cachegate.gateway.upstream.UpstreamListener;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Between a call and its {@link Relay}: while a speculative cache lookup still decides (see {@link Speculation}),
 * what the call says (its head, the pieces of its first read, a failure) is kept in order instead of reaching the
 * relay, and so the client; a miss replays it, a hit drops it (the relay cancels the call). Nothing more is read
 * meanwhile, since the relay asks for the next read only after handling a read, so at most one read is held. Only
 * a stream or an error is held, though: a stream's backend is still generating, which a hit stops, and a hit
 * beats an error. A whole successful answer has cost all it will and goes to the client at once. Otherwise it
 * passes everything straight on.
 * <p>It sits between the call and the relay rather than among the exchange's answer decorators because what it holds
 * back comes before the relay's decisions, not after: a head the relay saw would already have been counted against
 * or for the replica, timed, retried elsewhere or moved to a fallback, and put before the taps (the capture, the
 * shared answer), none of which a hit may leave behind; and a failure held here has not yet been answered.
 */
final class SpeculativeHold implements UpstreamListener {

    private record Head(UpstreamCall call, HttpResponse head, long arrivedNanos) {
    }

    private record Content(UpstreamCall call, HttpContent content) {
    }

    private record Failure(UpstreamCall call, UpstreamFailure failure, Throwable cause) {
    }

    private final Exchange x;
    private final Relay relay;
    /** What the call said while the lookup decided, in order; null when nothing is held. */
    private List<Object> events;
    private UpstreamCall readComplete;

    SpeculativeHold(Exchange x, Relay relay) {
        this.x = x;
        this.relay = relay;
    }

    @Override
    public boolean onResponseHead(UpstreamCall call, HttpResponse head) {
        long now = x.ticker().nanos();
        if (events == null && Speculation.pending(x) && head.status().code() / 100 == 2 && !isStream(head)) {
            Speculation.commit(x);
        }
        if (holding()) {
            events.add(new Head(call, head, now));
            return true;
        }
        return relay.onHead(call, head, now);
    }

    @Override
    public void onContent(UpstreamCall call, HttpContent content) {
        if (events != null) {
            events.add(new Content(call, content));
        } else {
            relay.onContent(call, content);
        }
    }

    @Override
    public void onReadComplete(UpstreamCall call) {
        if (events != null) {
            readComplete = call; // the relay's answer to it (write, flush, read on) comes after the replay
        } else {
            relay.onReadComplete(call);
        }
    }

    @Override
    public void onFailure(UpstreamCall call, UpstreamFailure failure, Throwable cause) {
        if (holding()) {
            events.add(new Failure(call, failure, cause)); // its retry or its error answer waits for the lookup
        } else {
            relay.onFailure(call, failure, cause);
        }
    }

    private static boolean isStream(HttpResponse head) {
        String type = head.headers().get(HttpHeaderNames.CONTENT_TYPE);
        return type != null && type.regionMatches(true, 0, "text/event-stream", 0, 17);
    }

    /** The cache answers instead, or the client left: the held pieces are released. */
    void drop() {
        if (events != null) {
            release(events, 0);
            events = null;
            readComplete = null;
        }
    }

    /** True when what the call says must wait for a pending lookup; the first such event starts the hold. */
    private boolean holding() {
        if (events == null && Speculation.pending(x)) {
            events = new ArrayList<>(4);
            Speculation.afterDecision(x, this::replay);
        }
        return events != null;
    }

    /** The lookup missed: the relay hears it all, as it came; a head it refuses (a retry elsewhere) drops the rest. */
    private void replay() {
        List<Object> held = events;
        events = null;
        for (int i = 0; i < held.size(); i++) {
            Object event = held.get(i);
            if (event instanceof Head h && !relay.onHead(h.call(), h.head(), h.arrivedNanos())) {
                h.call().cancel(); // as the call does itself when its head is refused
                release(held, i + 1);
                readComplete = null;
                return;
            } else if (event instanceof Content c) {
                relay.onContent(c.call(), c.content());
            } else if (event instanceof Failure f) {
                relay.onFailure(f.call(), f.failure(), f.cause());
            }
        }
        if (readComplete != null) {
            UpstreamCall call = readComplete;
            readComplete = null;
            relay.onReadComplete(call);
        }
    }

    private static void release(List<Object> held, int from) {
        for (int i = from; i < held.size(); i++) {
            if (held.get(i) instanceof Content c) {
                c.content().release();
            }
        }
    }
}
