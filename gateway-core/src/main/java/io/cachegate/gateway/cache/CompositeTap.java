package io.cachegate.gateway.cache;

import io.cachegate.gateway.proxy.ResponseTap;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;

/** Two taps on one answer: the capture that stores it and the shared answer that followers read. */
final class CompositeTap implements ResponseTap {

    private final ResponseTap first;
    private final ResponseTap second;

    CompositeTap(ResponseTap first, ResponseTap second) {
        this.first = first;
        this.second = second;
    }

    @Override
    public void onHead(HttpResponse head) {
        first.onHead(head);
        second.onHead(head);
    }

    @Override
    public void onContent(ByteBuf content) {
        first.onContent(content);
        second.onContent(content);
    }

    @Override
    public void onComplete() {
        first.onComplete();
        second.onComplete();
    }

    @Override
    public void onAbort() {
        first.onAbort();
        second.onAbort();
    }

    @Override
    public void onFallback(String backend, String model) {
        first.onFallback(backend, model);
        second.onFallback(backend, model);
    }

    @Override
    public boolean needsRest() {
        return first.needsRest() || second.needsRest();
    }
}
