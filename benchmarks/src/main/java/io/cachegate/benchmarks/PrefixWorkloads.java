package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The request sequences of {@code bench prefix-affinity}: many prompts that share long prefixes. Each is a
 * list of streamed, sampled chat bodies in send order; a conversation's later turns always come after its
 * earlier ones, other conversations' turns in between (as real sessions interleave).
 */
final class PrefixWorkloads {

    private static final ObjectMapper JSON = BenchJson.mapper();
    private static final String[] WORDS = {"system", "policy", "customer", "account", "answer", "request", "always",
        "never", "include", "summary", "careful", "context", "document", "section", "table", "refund", "product",
        "support", "escalate", "polite", "concise", "format", "bullet", "reference", "example", "language",
        "verify", "identity", "order", "shipping", "invoice", "warranty", "schedule", "meeting", "report", "metric"};

    private PrefixWorkloads() {
    }

    /** A named request sequence. */
    record Workload(String name, String description, List<byte[]> bodies) {
    }

    /**
     * Replays a multi-turn trace (JSON lines with {@code session_id}, {@code round}, {@code output_length},
     * {@code input}: the whole conversation so far) in file order, one user message per request, with
     * {@code max_tokens} = the recorded output length capped at {@code maxTokensCap}.
     */
    static Workload trace(Path file, String model, int maxTokensCap) throws IOException {
        List<byte[]> bodies = new ArrayList<>();
        int sessions = 0;
        java.util.Set<Long> seen = new java.util.HashSet<>();
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                JsonNode n = JSON.readTree(line);
                if (!n.path("input").isTextual()) {
                    throw new IOException(file + ":" + number + ": no \"input\" text");
                }
                if (seen.add(n.path("session_id").asLong())) {
                    sessions++;
                }
                int max = Math.max(1, Math.min(maxTokensCap, n.path("output_length").asInt(maxTokensCap)));
                ObjectNode body = body(model, max);
                body.putArray("messages").addObject().put("role", "user").put("content", n.get("input").textValue());
                bodies.add(JSON.writeValueAsBytes(body));
            }
        }
        if (bodies.isEmpty()) {
            throw new IOException(file + ": no request");
        }
        return new Workload("trace", bodies.size() + " requests in " + sessions + " sessions from " + file.getFileName()
                + " (each input the whole conversation so far), max_tokens capped at " + maxTokensCap, bodies);
    }

    /**
     * inference-perf's {@code shared_prefix}: {@code groups} system prompts of about {@code systemChars}
     * characters, {@code questions} distinct questions per group, each a conversation of {@code turns} user
     * turns (the earlier ones with an answer). Conversations are shuffled with {@code seed}; turn t of every
     * conversation is sent before turn t + 1 of any.
     */
    static Workload sharedPrefix(int groups, int systemChars, int questions, int turns, int maxTokens, String model,
                                 long seed) {
        if (groups < 1 || systemChars < 1 || questions < 1 || turns < 1 || maxTokens < 1) {
            throw new IllegalArgumentException("groups, systemChars, questions, turns and maxTokens must be >= 1");
        }
        Random random = new Random(seed);
        List<String> systems = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            systems.add("Group " + g + " instructions. " + text(random, systemChars));
        }
        List<int[]> conversations = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            for (int q = 0; q < questions; q++) {
                conversations.add(new int[] {g, q});
            }
        }
        Collections.shuffle(conversations, random);
        List<byte[]> bodies = new ArrayList<>();
        for (int t = 0; t < turns; t++) {
            for (int[] c : conversations) {
                ObjectNode body = body(model, maxTokens);
                ArrayNode messages = body.putArray("messages");
                messages.addObject().put("role", "system").put("content", systems.get(c[0]));
                for (int k = 0; k <= t; k++) {
                    messages.addObject().put("role", "user").put("content",
                            "Question " + c[1] + "." + k + " of group " + c[0] + ": " + text(new Random(seed
                                    ^ (c[0] * 1_000_003L + c[1] * 1_009L + k)), 200));
                    if (k < t) {
                        messages.addObject().put("role", "assistant").put("content",
                                "Answer " + c[1] + "." + k + ": " + text(new Random(~seed ^ (c[0] * 7_919L + c[1]
                                        * 104_729L + k)), 300));
                    }
                }
                try {
                    bodies.add(JSON.writeValueAsBytes(body));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return new Workload("shared-prefix", groups + " groups x " + questions + " questions x " + turns
                + " turn(s) = " + bodies.size() + " requests; system prompts of ~" + systemChars + " chars, "
                + "max_tokens " + maxTokens, bodies);
    }

    /** About {@code chars} characters of seeded words. */
    static String text(Random random, int chars) {
        StringBuilder out = new StringBuilder(chars + 16);
        while (out.length() < chars) {
            out.append(WORDS[random.nextInt(WORDS.length)]).append(random.nextInt(100)).append(' ');
        }
        return out.toString().trim();
    }

    private static ObjectNode body(String model, int maxTokens) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", model).put("temperature", 0.7).put("max_tokens", maxTokens).put("stream", true);
        // The streamed usage says how many prompt tokens the replica found cached: the cost model is checked on it.
        body.putObject("stream_options").put("include_usage", true);
        return body;
    }
}
