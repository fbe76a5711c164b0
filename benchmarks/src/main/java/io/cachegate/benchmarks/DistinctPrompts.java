package io.cachegate.benchmarks;

import io.cachegate.bench.BenchRequest;
import io.cachegate.bench.RequestSource;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The semantic benchmark's texts and requests: prompt {@code n} is a pure function of {@code n}, a question of
 * 12 to 20 words that names {@code n}, so no two prompts are equal (every request is an exact miss) and none
 * matches another semantically (the guards reject neighbours whose numbers differ). Deterministic chat requests:
 * temperature 0, 16 output tokens, not streamed.
 */
final class DistinctPrompts implements RequestSource {

    private static final String[] ASKS = {"How do I", "Why can't I", "Can you explain how to", "What is the best way to",
        "Is it safe to", "When should I", "Who is allowed to", "Where do I go to"};
    private static final String[] VERBS = {"change", "cancel", "transfer", "renew", "export", "verify", "reset",
        "upgrade", "dispute", "schedule", "archive", "restore"};
    private static final String[] OBJECTS = {"my password", "the invoice", "a refund", "the annual plan",
        "my account", "the delivery", "two-factor login", "the API key", "my subscription", "the quarterly report",
        "a shared folder", "the payroll run", "my phone number", "the shipping address"};
    private static final String[] TAILS = {"after moving to another country", "without losing my history",
        "for a team of twelve people", "before the end of the month", "on the mobile app",
        "when the card has expired", "while travelling abroad", "using the command line", "", ""};

    private final AtomicLong next;

    /** A source whose requests start at prompt {@code first} and never repeat. */
    DistinctPrompts(long first) {
        this.next = new AtomicLong(first);
    }

    @Override
    public BenchRequest next() {
        return BenchRequest.post(ChatRequests.PATH, body(next.getAndIncrement()), false);
    }

    /** How many requests this source has handed out beyond {@code first}. */
    long position() {
        return next.get();
    }

    /** Prompt {@code n}: only letters, digits, spaces and {@code ,?}. */
    static String prompt(long n) {
        SplittableRandom random = new SplittableRandom(n * 0x9E3779B97F4A7C15L + 17);
        String tail = TAILS[random.nextInt(TAILS.length)];
        return "Ticket " + n + ", " + ASKS[random.nextInt(ASKS.length)] + " " + VERBS[random.nextInt(VERBS.length)]
                + " " + OBJECTS[random.nextInt(OBJECTS.length)] + (tail.isEmpty() ? "" : " " + tail) + "?";
    }

    /** The chat request carrying prompt {@code n} as its one user message, after a fixed system message. */
    static byte[] body(long n) {
        var body = BenchJson.object().put("model", ChatRequests.MODEL).put("temperature", 0).put("max_tokens", 16);
        var messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", "You are a concise support assistant.");
        messages.addObject().put("role", "user").put("content", prompt(n));
        return BenchJson.bytes(body);
    }
}
