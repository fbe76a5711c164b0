package io.cachegate.cli.analyze;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes a request log whose true shares are known by construction, for one tenant and model: distinct deterministic
 * questions (half behind a shared system prompt), exact repeats spelt differently (keys reordered, answer-neutral
 * fields added), whitespace-only and case-only variants, sampled requests, and the same questions sent by a second
 * tenant (never a repeat: keys are per tenant). The expected prefix reuse comes from a brute-force oracle over the
 * texts the router hashes ({@code model \n message contents each followed by \n}).
 */
final class GeneratedLog {

    static final String MODEL = "m1";
    static final String SYSTEM = "You are the support assistant of a company that sells garden tools; answer briefly.";
    static final int BASES = 40;
    static final int EXACT = 10;
    static final int WHITESPACE = 6;
    static final int CASE = 4;
    static final int SAMPLED = 20;
    static final int OTHER_TENANT = 10;
    static final int TOTAL = BASES + EXACT + WHITESPACE + CASE + SAMPLED + OTHER_TENANT;
    static final int MAX_TOKENS = 50;

    private static final ObjectMapper JSON = new ObjectMapper();

    final List<String> lines = new ArrayList<>();
    /** The texts the prefix router hashes, in order, for the oracle. */
    private final List<String> hashed = new ArrayList<>();

    GeneratedLog() {
        for (int i = 0; i < BASES; i++) {
            add(null, base(i));
        }
        for (int i = 0; i < EXACT; i++) {
            // The same request in another spelling: fields reordered, stream and metadata added (answer-neutral).
            ObjectNode b = JSON.createObjectNode();
            ObjectNode original = base(i);
            b.put("stream", true);
            b.set("messages", original.get("messages"));
            b.put("max_tokens", MAX_TOKENS);
            b.put("temperature", 0.0);
            b.put("model", MODEL);
            add(null, b);
        }
        for (int i = 0; i < WHITESPACE; i++) {
            add(null, chat(i, question(10 + i).replace(" ", "  ") + "\n", 0));
        }
        for (int i = 0; i < CASE; i++) {
            add(null, chat(i, question(20 + i).toUpperCase(Locale.ROOT), 0));
        }
        for (int i = 0; i < SAMPLED; i++) {
            add(null, chat(1, "Write a short poem number " + i + " about a rake.", 0.8));
        }
        for (int i = 0; i < OTHER_TENANT; i++) {
            add("beta", base(i));
        }
    }

    static String question(int i) {
        return "Question " + i + ": how long is the warranty on the model " + (1000 + i) + " hedge trimmer?";
    }

    private static ObjectNode base(int i) {
        return chat(i, question(i), 0);
    }

    /** A chat request; even {@code variant}s carry the shared system prompt. */
    private static ObjectNode chat(int variant, String question, double temperature) {
        ObjectNode body = JSON.createObjectNode().put("model", MODEL).put("temperature", temperature)
                .put("max_tokens", MAX_TOKENS);
        var messages = body.putArray("messages");
        if (variant % 2 == 0) {
            messages.addObject().put("role", "system").put("content", SYSTEM);
        }
        messages.addObject().put("role", "user").put("content", question);
        return body;
    }

    private void add(String tenant, ObjectNode body) {
        try {
            lines.add(tenant == null ? JSON.writeValueAsString(body)
                    : JSON.writeValueAsString(JSON.createObjectNode().put("tenant", tenant).set("body", body)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StringBuilder text = new StringBuilder(MODEL).append('\n');
        body.get("messages").forEach(m -> text.append(m.get("content").textValue()).append('\n'));
        hashed.add(text.toString());
    }

    /** Prompt characters in complete blocks an earlier request began with: longest common prefix, brute force. */
    long expectedPrefixChars(int blockChars) {
        long total = 0;
        for (int i = 0; i < hashed.size(); i++) {
            int best = 0;
            for (int j = 0; j < i; j++) {
                best = Math.max(best, commonPrefix(hashed.get(i), hashed.get(j)) / blockChars);
            }
            total += (long) best * blockChars;
        }
        return total;
    }

    long promptChars() {
        return hashed.stream().mapToLong(String::length).sum();
    }

    Path write(Path file) throws IOException {
        return Files.write(file, lines, StandardCharsets.UTF_8);
    }

    private static int commonPrefix(String a, String b) {
        int n = Math.min(a.length(), b.length());
        int i = 0;
        while (i < n && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return i;
    }
}
