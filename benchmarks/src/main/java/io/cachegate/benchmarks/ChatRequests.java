package io.cachegate.benchmarks;

import io.cachegate.bench.BenchRequest;
import io.cachegate.bench.RequestSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** The chat requests the scenarios send: the path, the model the simulator serves, and sources over fixed bodies. */
final class ChatRequests {

    static final String PATH = "/v1/chat/completions";
    static final String MODEL = "llama-3.1-8b";

    private ChatRequests() {
    }

    /** {@code bodies} in order, starting over after the last. */
    static RequestSource inOrder(List<byte[]> bodies, boolean stream) {
        BenchRequest[] all = bodies.stream().map(b -> BenchRequest.post(PATH, b, stream)).toArray(BenchRequest[]::new);
        AtomicLong next = new AtomicLong();
        return () -> all[(int) Long.remainderUnsigned(next.getAndIncrement(), all.length)];
    }
}
