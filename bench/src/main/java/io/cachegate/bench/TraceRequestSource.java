package io.cachegate.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/** A trace read into memory, replayed round-robin; thread-safe through one atomic counter. */
final class TraceRequestSource implements RequestSource {

    static final String DEFAULT_PATH = "/v1/chat/completions";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final BenchRequest[] requests;
    private final AtomicLong sequence = new AtomicLong();

    private TraceRequestSource(List<BenchRequest> requests) {
        this.requests = requests.toArray(new BenchRequest[0]);
    }

    static TraceRequestSource read(Path file) throws IOException {
        List<BenchRequest> requests = new ArrayList<>();
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    requests.add(parse(JSON.readTree(line)));
                } catch (JsonProcessingException | IllegalArgumentException e) {
                    throw new IOException(file + ":" + number + ": not a trace line: " + message(e), e);
                }
            }
        }
        if (requests.isEmpty()) {
            throw new IOException(file + ": the trace holds no request");
        }
        return new TraceRequestSource(requests);
    }

    int size() {
        return requests.length;
    }

    @Override
    public BenchRequest next() {
        return requests[(int) Long.remainderUnsigned(sequence.getAndIncrement(), requests.length)];
    }

    private static BenchRequest parse(JsonNode node) throws JsonProcessingException {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("expected a JSON object");
        }
        boolean wrapped = node.has("body") && (node.has("path") || node.has("method"));
        String path = wrapped ? node.path("path").asText(DEFAULT_PATH) : DEFAULT_PATH;
        String method = wrapped ? node.path("method").asText("") : "";
        JsonNode body = wrapped ? node.get("body") : node;
        boolean hasBody = body != null && !body.isNull() && !body.isMissingNode();
        if (hasBody && !body.isObject()) {
            throw new IllegalArgumentException("\"body\" must be a JSON object");
        }
        if (method.isEmpty()) {
            method = hasBody ? "POST" : "GET";
        }
        boolean streaming = hasBody && body.path("stream").asBoolean(false);
        byte[] bytes = hasBody ? JSON.writeValueAsBytes(body) : null;
        return new BenchRequest(method.toUpperCase(Locale.ROOT), path, bytes, streaming);
    }

    private static String message(Exception e) {
        return e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    }
}
