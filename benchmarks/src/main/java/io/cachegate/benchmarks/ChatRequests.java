package io.cachegate.benchmarks;

import io.cachegate.bench.BenchRequest;
import io.cachegate.bench.RequestSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** The chat requests the scenarios send: the path, the model the simulator serves, and sources over fixed bodies. */
final class ChatRequests {

    static final String PATH = "/v1/chat/completions";
    /** The Responses API, cached by the same rules as chat. */
    static final String RESPONSES_PATH = "/v1/responses";
    static final String MODEL = "llama-3.1-8b";

    private ChatRequests() {
    }

    /** {@code bodies} in order, starting over after the last. */
    static RequestSource inOrder(List<byte[]> bodies, boolean stream) {
        return inOrder(PATH, bodies, stream);
    }

    /** As {@link #inOrder(List, boolean)}, to {@code path}. */
    static RequestSource inOrder(String path, List<byte[]> bodies, boolean stream) {
        BenchRequest[] all = bodies.stream().map(b -> BenchRequest.post(path, b, stream)).toArray(BenchRequest[]::new);
        AtomicLong next = new AtomicLong();
        return () -> all[(int) Long.remainderUnsigned(next.getAndIncrement(), all.length)];
    }
}
