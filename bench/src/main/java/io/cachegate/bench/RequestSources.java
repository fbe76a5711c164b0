package io.cachegate.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/** Factories for the request sources the generator ships with. */
public final class RequestSources {

    private RequestSources() {
    }

    /**
     * Replays a JSON-lines trace in order, starting over at its end. Each line is either
     * {@code {"path": "/v1/chat/completions", "body": {...}}} (optionally with {@code "method"}) or
     * a bare chat-completions request body. Bodies are encoded once, when the file is read.
     *
     * @throws IOException if the file cannot be read, a line is not JSON, or it holds no request
     */
    public static RequestSource fromTrace(Path jsonl) throws IOException {
        return TraceRequestSource.read(jsonl);
    }

    /** The seeded chat-completions generator described by {@code spec}. */
    public static RequestSource generated(GeneratorSpec spec) {
        return new GeneratedRequestSource(spec);
    }

    /** Sends the same request every time. */
    public static RequestSource constant(BenchRequest request) {
        Objects.requireNonNull(request, "request");
        return () -> request;
    }
}
