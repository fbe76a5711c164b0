package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.testkit.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Helpers of the exact-cache tests: request bodies, X-Cache, admin calls, metrics and SSE bodies. */
final class CacheCalls {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String CHAT = "/v1/chat/completions";

    private CacheCalls() {
    }

    /** A word no other test sends, so tests never see each other's entries. */
    static String nonce() {
        return UUID.randomUUID().toString().substring(0, 12);
    }

    /** A cacheable chat request (temperature 0, no max_tokens: the simulator then finishes with {@code stop}). */
    static String chat(String prompt) {
        return chat(prompt, "");
    }

    /** As {@link #chat(String)}, with more top-level fields ({@code "seed":7,"top_p":0.5}). */
    static String chat(String prompt, String extraFields) {
        return "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"user\",\"content\":"
                + quote(prompt) + "}]" + (extraFields.isEmpty() ? "" : "," + extraFields) + "}";
    }

    static String quote(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String xCache(HttpResponse<?> response) {
        return response.headers().firstValue("X-Cache").orElse("");
    }

    static String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The message text of a chat answer. */
    static String content(String body) {
        return json(body).path("choices").path(0).path("message").path("content").asText();
    }

    /** The {@code data:} payloads of an SSE body, without {@code [DONE]}. */
    static List<JsonNode> events(String sse) {
        List<JsonNode> events = new ArrayList<>();
        for (String line : sse.split("\n")) {
            String l = line.strip();
            if (l.startsWith("data:") && !l.equals("data: [DONE]")) {
                events.add(json(l.substring(5).strip()));
            }
        }
        return events;
    }

    /** The text an SSE chat answer streamed. */
    static String streamedContent(String sse) {
        StringBuilder out = new StringBuilder();
        for (JsonNode event : events(sse)) {
            for (JsonNode choice : event.path("choices")) {
                JsonNode c = choice.path("delta").path("content");
                if (c.isTextual()) {
                    out.append(c.textValue());
                }
            }
        }
        return out.toString();
    }

    /** {@code POST /admin/purge}; returns the purged count, failing on any other answer. */
    static long purge(Gateway gateway, String json) throws Exception {
        HttpResponse<String> response = RawHttp.post(gateway.adminPort(), "/admin/purge", json);
        if (response.statusCode() != 200) {
            throw new AssertionError("purge " + json + ": " + response.statusCode() + " " + response.body());
        }
        return json(response.body()).path("purged").asLong(-1);
    }

    /**
     * Waits until no semantic write-back is in progress: the memory store's write completes before the answer
     * leaves and starts the write-back at once, so then the last answer's entry is in the index.
     */
    static void awaitIndexed(Gateway gateway) {
        assertThat(Poll.until(java.time.Duration.ofSeconds(20), () -> {
            try {
                return metric(gateway, "cachegate_semantic_writes_pending") == 0;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        })).as("index entry written").isTrue();
    }

    /** The sum of the samples of {@code name} whose labels include every {@code label="value"} given. */
    static double metric(Gateway gateway, String name, String... labels) throws Exception {
        String scrape = RawHttp.get(gateway.adminPort(), "/metrics").body();
        double sum = 0;
        for (String line : scrape.split("\n")) {
            if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= line.contains(label);
            }
            if (all) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }
}
