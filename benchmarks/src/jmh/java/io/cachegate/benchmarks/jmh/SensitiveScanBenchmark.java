package io.cachegate.benchmarks.jmh;

import io.cachegate.cache.sensitive.Findings;
import io.cachegate.cache.sensitive.SensitiveDataDetector;
import io.cachegate.config.SensitivePattern;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The sensitive-data scan every cacheable request's text goes through (on routes other than {@code allow}).
 * {@code text}: {@code clean} is prose with the numbers, dates, prices, ids and at-signs that make the detector
 * look closer (the common case); {@code matches} adds an e-mail, a card, a phone number and a JWT every ~1 KB;
 * {@code unicode} is clean prose in Chinese, Japanese (fullwidth punctuation, which NFKC changes), Hindi, German and
 * French, so the text folding does its whole work (ASCII text is not copied).
 * Divide the time by {@code kb} for ns per KB. {@code builtInAndPolicyPattern} adds one RE2/J policy pattern;
 * {@code readOnce} is the floor, one read of every character.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SensitiveScanBenchmark extends JmhDefaults {

    private static final String[] CLEAN = {"please summarise the support ticket", "about a refund for order 48213",
        "that arrived on 2024-03-14 damaged", "the customer paid $1,299.00 and", "wants a replacement (not credit)",
        "see section 4.2 of the policy v1.8.3", "ticket id 550e8400-e29b-41d4-a716-446655440000",
        "thanks @support team, reply by 10:30", "in 3 sentences, politely, as of Q3 2024", "+5 points for speed"};
    private static final String[] UNICODE = {"\u8bf7\u603b\u7ed3\u8fd9\u4e2a\u5de5\u5355", "\u8ba2\u5355 48213 \u4e8e 2024\u5e743\u670814\u65e5\u5230\u8fbe",
        "\u8fd4\u91d1\u306b\u3064\u3044\u3066\u3001\uff13\u6587\u3067\u6559\u3048\u3066\u304f\u3060\u3055\u3044\uff01",
        "\u0915\u0943\u092a\u092f\u093e \u092e\u0947\u0930\u0947 \u0911\u0930\u094d\u0921\u0930 \u0915\u0940 \u0938\u094d\u0925\u093f\u0924\u093f \u092c\u0924\u093e\u090f\u0902",
        "Die Lieferung f\u00fcr M\u00fcller kam am 14.03.2024 besch\u00e4digt an",
        "le client a pay\u00e9 1\u202f299,00\u00a0\u20ac et veut un \u00e9change", "ticket \u2013 see section 4.2"};
    private static final String[] SENSITIVE = {"mail jane.doe@example.com", "card 4111 1111 1111 1111",
        "call +44 20 7946 0958", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXNpZw"};

    @Param({"1", "16"})
    int kb;

    @Param({"clean", "matches", "unicode"})
    String text;

    private String input;
    private final SensitiveDataDetector builtIn = SensitiveDataDetector.builtIn();
    private final SensitiveDataDetector withPattern = SensitiveDataDetector.with(
            List.of(new SensitivePattern("employee_id", "EMP-\\d{6}")));

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(7);
        StringBuilder out = new StringBuilder(kb * 1024 + 64);
        int nextSensitive = 900;
        while (out.length() < kb * 1024) {
            String[] sentences = text.equals("unicode") ? UNICODE : CLEAN;
            out.append(sentences[random.nextInt(sentences.length)]).append(". ");
            if (text.equals("matches") && out.length() >= nextSensitive) {
                out.append(SENSITIVE[random.nextInt(SENSITIVE.length)]).append(". ");
                nextSensitive += 1024;
            }
        }
        input = out.substring(0, kb * 1024);
        boolean found = builtIn.scan(input).any();
        if (found != text.equals("matches")) {
            throw new IllegalStateException("the " + text + " text scanned as " + builtIn.scan(input));
        }
    }

    /** The floor: reading every character once. On a busy machine, compare the others to it rather than to 0. */
    @Benchmark
    public int readOnce() {
        int sum = 0;
        for (int i = 0; i < input.length(); i++) {
            sum += input.charAt(i);
        }
        return sum;
    }

    @Benchmark
    public Findings builtIn() {
        return builtIn.scan(input);
    }

    @Benchmark
    public Findings builtInAndPolicyPattern() {
        return withPattern.scan(input);
    }
}
