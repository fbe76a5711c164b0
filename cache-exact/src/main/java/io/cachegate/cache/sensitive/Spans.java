package io.cachegate.cache.sensitive;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Every finding's place in a text, for {@link SensitiveDataDetector#redact}: overlapping findings merge. */
final class Spans implements Hits {

    private record Span(int start, int end, String label) {
    }

    private final List<Span> spans = new ArrayList<>();

    @Override
    public boolean wants(SensitiveKind kind) {
        return true;
    }

    @Override
    public void found(SensitiveKind kind, int start, int end) {
        add(kind.tag(), start, end);
    }

    void add(String label, int start, int end) {
        if (end > start) {
            spans.add(new Span(start, end, label));
        }
    }

    /**
     * {@code text} with each span (found in its folding {@code folded}, merged with those it overlaps) replaced by
     * {@code [REDACTED:<label>]}.
     */
    String apply(CharSequence text, FoldedText folded) {
        if (spans.isEmpty()) {
            return text.toString();
        }
        spans.replaceAll(s -> new Span(folded.originalStart(s.start()), folded.originalEnd(s.end()), s.label()));
        spans.sort(Comparator.comparingInt(Span::start).thenComparing(Comparator.comparingInt(Span::end).reversed()));
        StringBuilder out = new StringBuilder(text.length());
        int at = 0;
        for (Span s : spans) {
            if (s.end() <= at) {
                continue; // inside one already replaced
            }
            if (s.start() >= at) {
                out.append(text, at, s.start()).append("[REDACTED:").append(s.label()).append(']');
            }
            at = s.end();
        }
        return out.append(text, at, text.length()).toString();
    }
}
