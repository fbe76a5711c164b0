package io.cachegate.gateway.exchange;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A tap for stage tests: what it heard, in order ("fallback b/m", "head 200", "content", "complete", "abort"), and the body. */
public class RecordingTap implements ResponseTap {

    private final List<String> events = new ArrayList<>();
    private final StringBuilder body = new StringBuilder();
    private HttpResponse head;

    @Override
    public void onHead(HttpResponse head) {
        this.head = head;
        events.add("head " + head.status().code());
    }

    @Override
    public void onContent(ByteBuf content) {
        if (content.isReadable()) {
            events.add("content");
            body.append(content.toString(StandardCharsets.UTF_8));
        }
    }

    @Override
    public void onComplete() {
        events.add("complete");
    }

    @Override
    public void onAbort() {
        events.add("abort");
    }

    @Override
    public void onFallback(String backend, String model) {
        events.add("fallback " + backend + "/" + model);
    }

    /** The events heard, one "content" per readable piece. */
    public List<String> events() {
        return List.copyOf(events);
    }

    /** The events heard with runs of "content" folded into one, e.g. [head 200, content, complete]. */
    public List<String> outline() {
        List<String> out = new ArrayList<>();
        for (String e : events) {
            if (!(e.equals("content") && !out.isEmpty() && out.get(out.size() - 1).equals("content"))) {
                out.add(e);
            }
        }
        return out;
    }

    public String body() {
        return body.toString();
    }

    /** A header of the head heard; null before it. */
    public String header(CharSequence name) {
        return head == null ? null : head.headers().get(name);
    }
}
