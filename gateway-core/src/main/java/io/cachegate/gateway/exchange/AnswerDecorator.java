package io.cachegate.gateway.exchange;

import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpObject;

/**
 * One step an exchange's answer passes on its way to the client ({@link Answer}, in the order it lists them): it
 * looks at each part, changes it, or holds or drops it. A part is a head ({@code HttpResponse}), a piece of the body
 * ({@code HttpContent}, the last one a {@code LastHttpContent}) or a whole answer ({@code FullHttpResponse}).
 */
interface AnswerDecorator {

    /** The step after this one: the next decorator, and after the last, the client's connection. */
    interface Next {
        void write(HttpObject part, ChannelPromise promise);
    }

    /**
     * Passes {@code part} on to {@code next}, changed or not. A decorator that holds or drops a part owns it (releases
     * it) and completes {@code promise} itself: the writer reads on once the promise completes.
     */
    void write(HttpObject part, ChannelPromise promise, Next next);
}
