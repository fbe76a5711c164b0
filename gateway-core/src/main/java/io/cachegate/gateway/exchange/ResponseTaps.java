package io.cachegate.gateway.exchange;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/** The taps stages put on one answer (the capture that stores it, the shared answer followers read), as one. */
final class ResponseTaps implements ResponseTap {

    private final List<ResponseTap> taps = new ArrayList<>(2);

    void add(ResponseTap tap) {
        taps.add(tap);
    }

    boolean isEmpty() {
        return taps.isEmpty();
    }

    @Override
    public void onHead(HttpResponse head) {
        for (ResponseTap t : taps) {
            t.onHead(head);
        }
    }

    @Override
    public void onContent(ByteBuf content) {
        for (ResponseTap t : taps) {
            t.onContent(content);
        }
    }

    @Override
    public void onComplete() {
        for (ResponseTap t : taps) {
            t.onComplete();
        }
    }

    @Override
    public void onAbort() {
        for (ResponseTap t : taps) {
            t.onAbort();
        }
    }

    @Override
    public void onFallback(String backend, String model) {
        for (ResponseTap t : taps) {
            t.onFallback(backend, model);
        }
    }

    @Override
    public boolean needsRest() {
        for (ResponseTap t : taps) {
            if (t.needsRest()) {
                return true;
            }
        }
        return false;
    }
}
