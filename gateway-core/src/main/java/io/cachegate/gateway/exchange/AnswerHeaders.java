package io.cachegate.gateway.exchange;

import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;

/**
 * Adds the headers stages set on an exchange ({@link Exchange#responseHeader}) to the head of whatever answer it
 * gets: a hit, a relayed answer or stream, a follower's, an error. A header set here replaces the writer's of that
 * name (the backend's {@code x-ratelimit-*} never arrive: {@code ForwardedHeaders} drops them).
 */
final class AnswerHeaders implements AnswerDecorator {

    /** Null until a stage sets one; taken by the answer's first head. */
    private HttpHeaders headers;

    void set(CharSequence name, Object value) {
        if (headers == null) {
            headers = new DefaultHttpHeaders();
        }
        headers.set(name, value);
    }

    @Override
    public void write(HttpObject part, ChannelPromise promise, Next next) {
        if (part instanceof HttpResponse head && headers != null) {
            head.headers().setAll(headers); // set(HttpHeaders) would clear the writer's first
            headers = null;
        }
        next.write(part, promise);
    }
}
