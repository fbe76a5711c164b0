package io.cachegate.benchmarks.jmh;

import java.util.SplittableRandom;

/** Seeded text for the benchmarks' inputs: words of a chat, never the same twice in one text. */
final class Workloads {

    private static final String[] WORDS = {"please", "summarise", "the", "following", "support", "ticket", "about",
        "a", "refund", "for", "an", "order", "that", "arrived", "late", "and", "damaged", "customer", "wants",
        "replacement", "instead", "of", "credit", "explain", "policy", "politely", "in", "three", "sentences"};

    private Workloads() {
    }

    /** About {@code chars} characters of seeded words. */
    static String text(int chars, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder out = new StringBuilder(chars + 16);
        while (out.length() < chars) {
            out.append(WORDS[random.nextInt(WORDS.length)]).append(random.nextInt(1000)).append(' ');
        }
        return out.substring(0, chars);
    }
}
