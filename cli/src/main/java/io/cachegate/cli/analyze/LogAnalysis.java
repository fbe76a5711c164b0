package io.cachegate.cli.analyze;

import io.cachegate.cache.semantic.Embedder;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Streams a log through a {@link TrafficAnalyzer}: reads a chunk of lines, embeds the texts of that chunk the
 * semantic layer would compare (one text per model call, as the gateway sends them, all of the chunk in flight so
 * the embedder's workers stay busy), then hands the requests to the analyzer in file order. Memory is one chunk
 * plus the analyzer's bounded structures.
 */
final class LogAnalysis {

    private static final int CHUNK = 256;
    private static final int MAX_MALFORMED_SHOWN = 5;

    private final TrafficAnalyzer analyzer;
    private final RequestLogParser parser;
    private final Optional<Embedder> embedder;
    private final int maxLineChars;

    private long lines;
    private long blank;
    private long requests;
    private long malformed;
    private final List<ParsedLine.Malformed> firstMalformed = new ArrayList<>();

    LogAnalysis(TrafficAnalyzer analyzer, RequestLogParser parser, Optional<Embedder> embedder, int maxLineChars) {
        this.analyzer = analyzer;
        this.parser = parser;
        this.embedder = embedder;
        this.maxLineChars = maxLineChars;
    }

    /** Reads {@code in} to its end; {@code progress}, when present, is updated as bytes are read. */
    void run(InputStream in, Optional<ProgressLine> progress) throws IOException, InterruptedException {
        CountingInputStream counted = new CountingInputStream(in);
        // Invalid UTF-8 becomes U+FFFD rather than an exception: a damaged line is still a line.
        InputStreamReader decoder = new InputStreamReader(counted, StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE));
        try (BoundedLineReader reader = new BoundedLineReader(decoder, maxLineChars)) {
            List<TrafficAnalyzer.Keyed> chunk = new ArrayList<>(CHUNK);
            String line;
            while ((line = reader.readLine()) != null) {
                lines++;
                if (line != BoundedLineReader.TOO_LONG && line.isBlank()) {
                    blank++;
                    continue;
                }
                ParsedLine parsed = line == BoundedLineReader.TOO_LONG
                        ? new ParsedLine.Malformed(lines, "line longer than " + maxLineChars + " characters")
                        : parser.parse(lines, line);
                if (parsed instanceof ParsedLine.Malformed m) {
                    malformed(m);
                } else if (parsed instanceof ParsedLine.Request r) {
                    chunk.add(analyzer.key(r.request()));
                }
                if (chunk.size() == CHUNK) {
                    observe(chunk);
                    chunk.clear();
                }
                progress.ifPresent(p -> p.update(counted.count(), lines));
            }
            observe(chunk);
        }
        progress.ifPresent(ProgressLine::finish);
    }

    private void observe(List<TrafficAnalyzer.Keyed> chunk) throws InterruptedException {
        List<CompletableFuture<float[][]>> vectors = new ArrayList<>(chunk.size());
        for (TrafficAnalyzer.Keyed k : chunk) {
            vectors.add(embedder.isPresent() && analyzer.wantsVector(k)
                    ? embedder.get().embed(List.of(k.semantic().query().orElseThrow().text())) : null);
        }
        for (int i = 0; i < chunk.size(); i++) {
            float[] vector = null;
            if (vectors.get(i) != null) {
                try {
                    vector = vectors.get(i).get()[0];
                } catch (ExecutionException e) {
                    throw new IllegalStateException("the embedder failed: " + e.getCause().getMessage(), e.getCause());
                }
            }
            analyzer.observe(chunk.get(i), vector);
            requests++;
        }
    }

    private void malformed(ParsedLine.Malformed m) {
        malformed++;
        if (firstMalformed.size() < MAX_MALFORMED_SHOWN) {
            firstMalformed.add(m);
        }
    }

    /** Lines read, blank lines included. */
    long lines() {
        return lines;
    }

    long blank() {
        return blank;
    }

    long requests() {
        return requests;
    }

    long malformed() {
        return malformed;
    }

    /** The first few malformed lines, with why. */
    List<ParsedLine.Malformed> firstMalformed() {
        return List.copyOf(firstMalformed);
    }

    TrafficAnalyzer analyzer() {
        return analyzer;
    }
}
