package io.cachegate.routing;

import java.util.Optional;

/**
 * Reads the load gauges out of a vLLM Prometheus text exposition: {@code vllm:num_requests_waiting},
 * {@code vllm:num_requests_running} and {@code vllm:kv_cache_usage_perc} (older versions:
 * {@code vllm:gpu_cache_usage_perc}; despite the name, a fraction). Feed the result to
 * {@link ReplicaSet#recordExternalLoad}. Pure; other lines, and malformed ones, are skipped.
 */
public final class VllmMetrics {

    private static final String WAITING = "vllm:num_requests_waiting";
    private static final String RUNNING = "vllm:num_requests_running";
    private static final String KV = "vllm:kv_cache_usage_perc";
    private static final String KV_LEGACY = "vllm:gpu_cache_usage_perc";

    private VllmMetrics() {
    }

    /** The load in {@code text}; empty when it has neither a waiting-requests nor a KV-usage sample. */
    public static Optional<VllmLoad> parse(CharSequence text) {
        double waiting = 0;
        double running = 0;
        double kv = 0;
        boolean found = false;
        int start = 0;
        int length = text.length();
        while (start < length) {
            int end = start;
            while (end < length && text.charAt(end) != '\n') {
                end++;
            }
            Sample s = sample(text, start, end);
            if (s != null && !Double.isNaN(s.value)) {
                switch (s.name) {
                    case WAITING -> {
                        waiting += s.value;
                        found = true;
                    }
                    case RUNNING -> running += s.value;
                    case KV, KV_LEGACY -> {
                        kv = Math.max(kv, Math.min(1, Math.max(0, s.value)));
                        found = true;
                    }
                    default -> { }
                }
            }
            start = end + 1;
        }
        return found ? Optional.of(new VllmLoad(waiting, running, kv)) : Optional.empty();
    }

    private record Sample(String name, double value) {
    }

    /** One {@code name{labels} value [timestamp]} line, or null for comments, blanks and junk. */
    private static Sample sample(CharSequence text, int start, int end) {
        int i = skipSpace(text, start, end);
        if (i >= end || text.charAt(i) == '#') {
            return null;
        }
        int nameStart = i;
        while (i < end && text.charAt(i) != '{' && !Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        String name = text.subSequence(nameStart, i).toString();
        if (!name.startsWith("vllm:")) {
            return null;
        }
        if (i < end && text.charAt(i) == '{') {
            i = afterLabels(text, i + 1, end);
            if (i < 0) {
                return null;
            }
        }
        i = skipSpace(text, i, end);
        int valueStart = i;
        while (i < end && !Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        Double value = number(text.subSequence(valueStart, i).toString());
        return value == null ? null : new Sample(name, value);
    }

    /** The index after the closing brace, honouring quoted values with escapes; -1 if unterminated. */
    private static int afterLabels(CharSequence text, int i, int end) {
        boolean quoted = false;
        for (; i < end; i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    quoted = false;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == '}') {
                return i + 1;
            }
        }
        return -1;
    }

    private static int skipSpace(CharSequence text, int i, int end) {
        while (i < end && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    private static Double number(String token) {
        switch (token) {
            case "+Inf", "Inf" -> {
                return Double.POSITIVE_INFINITY;
            }
            case "-Inf" -> {
                return Double.NEGATIVE_INFINITY;
            }
            case "" -> {
                return null;
            }
            default -> {
                try {
                    return Double.parseDouble(token);
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
    }
}
